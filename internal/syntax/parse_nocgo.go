//go:build !cgo

package syntax

import "context"

const available = false

// Parse returns ErrUnavailable: this build has no tree-sitter.
func Parse(ctx context.Context, lang string, src []byte, leaf int) (*Tree, error) {
	return nil, ErrUnavailable
}
