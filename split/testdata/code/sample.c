/* Inventory helpers. */
#include <stdio.h>
#include <string.h>

#define MAX_ITEMS 100

struct item {
    char name[32];
    int quantity;
};

/* Adds n, up to MAX_ITEMS. */
static void restock(struct item *it, int n)
{
    it->quantity += n;
    if (it->quantity > MAX_ITEMS)
        it->quantity = MAX_ITEMS;
}

int main(void)
{
    struct item it = {"bolt", 98};
    restock(&it, 5);
    printf("%s: %d\n", it.name, it.quantity);
    return 0;
}
