// Inventory helpers.
#include <algorithm>
#include <string>
#include <vector>

namespace inventory {

/// An item in stock.
class Item {
public:
    explicit Item(std::string name) : name_(std::move(name)) {}

    void restock(int n, int max) { quantity_ = std::min(quantity_ + n, max); }

    int quantity() const { return quantity_; }

private:
    std::string name_;
    int quantity_ = 0;
};

int total(const std::vector<Item>& items) {
    int sum = 0;
    for (const auto& i : items) sum += i.quantity();
    return sum;
}

}  // namespace inventory
