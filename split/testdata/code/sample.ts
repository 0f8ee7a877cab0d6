// Inventory helpers.
export interface Stock {
  name: string;
  quantity: number;
}

export type Restocker = (s: Stock, n: number) => Stock;

/** Adds n, up to max. */
export function restock(s: Stock, n: number, max = 100): Stock {
  return { ...s, quantity: Math.min(s.quantity + n, max) };
}

export class Store {
  private items = new Map<string, Stock>();

  add(s: Stock): void {
    this.items.set(s.name, s);
  }

  get(name: string): Stock | undefined {
    return this.items.get(name);
  }
}
