"""Inventory helpers."""
import json
from dataclasses import dataclass

MAX_ITEMS = 100


@dataclass
class Item:
    """An item in stock.

    def is not a definition here, and neither is class.

    Blank lines stay inside this docstring.
    """

    name: str
    quantity: int = 0

    def restock(self, n: int) -> None:
        # Never more than MAX_ITEMS.
        self.quantity = min(self.quantity + n, MAX_ITEMS)

    def to_json(self) -> str:
        return json.dumps({"name": self.name, "quantity": self.quantity})


def load(path):
    """Read items from a JSON file."""
    with open(path) as f:
        return [Item(**d) for d in json.load(f)]
