// Package inventory keeps items in stock.
package inventory

import (
	"encoding/json"
	"errors"
)

// ErrFull is returned when the store is full.
var ErrFull = errors.New("inventory: full")

// Item is an item in stock.
type Item struct {
	Name     string `json:"name"`
	Quantity int    `json:"quantity"`
}

// Restock adds n items, up to max.
func (it *Item) Restock(n, max int) error {
	if it.Quantity+n > max {
		return ErrFull
	}
	it.Quantity += n
	return nil
}

// Load parses items.
func Load(data []byte) ([]Item, error) {
	var items []Item
	err := json.Unmarshal(data, &items)
	return items, err
}
