// Inventory helpers.
import { readFile } from "node:fs/promises";

const MAX_ITEMS = 100;

/** An item in stock. */
export class Item {
  constructor(name, quantity = 0) {
    this.name = name;
    this.quantity = quantity;
  }

  restock(n) {
    // Never more than MAX_ITEMS.
    this.quantity = Math.min(this.quantity + n, MAX_ITEMS);
  }
}

export async function load(path) {
  const text = await readFile(path, "utf8");
  return JSON.parse(text).map((d) => new Item(d.name, d.quantity));
}
