//! Inventory helpers.
use std::collections::HashMap;

/// An item in stock.
#[derive(Debug, Clone)]
pub struct Item {
    pub name: String,
    pub quantity: u32,
}

impl Item {
    /// Adds n, up to max.
    pub fn restock(&mut self, n: u32, max: u32) {
        self.quantity = (self.quantity + n).min(max);
    }
}

pub fn index(items: &[Item]) -> HashMap<&str, &Item> {
    items.iter().map(|i| (i.name.as_str(), i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restock_caps() {
        let mut i = Item { name: "a".into(), quantity: 99 };
        i.restock(5, 100);
        assert_eq!(i.quantity, 100);
    }
}
