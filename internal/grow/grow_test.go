package grow

import (
	"fmt"
	"slices"
	"testing"
)

func TestSlice(t *testing.T) {
	s := []int{1, 2, 3}
	for _, n := range []int{0, 1, 5, 1 << 20} {
		g := Slice(s, n)
		if !slices.Equal(g, s) || cap(g)-len(g) < n {
			t.Fatalf("Slice(len %d cap %d, %d): len %d cap %d", len(s), cap(s), n, len(g), cap(g))
		}
	}
	// Room enough: the same array.
	room := make([]int, 2, 10)
	if g := Slice(room, 8); &g[:1][0] != &room[:1][0] {
		t.Error("Slice allocated though the capacity sufficed")
	}
	// Growing one at a time allocates a logarithmic number of times, on
	// both sides of the size from which make allocates.
	var grown []int
	allocs := 0
	for i := range 1 << 18 {
		before := cap(grown)
		grown = append(Slice(grown, 1), i)
		if cap(grown) != before {
			allocs++
		}
	}
	if allocs > 60 || cap(grown) > 2<<18 {
		t.Errorf("%d allocations, capacity %d for 262,144 appends", allocs, cap(grown))
	}
	for i, v := range grown {
		if v != i {
			t.Fatalf("element %d is %d", i, v)
		}
	}
}

func ExampleSlice() {
	ends := []int{3, 7}
	ends = Slice(ends, 1<<20) // room for a megabyte-long segment's tokens, allocated once
	ends = append(ends, 12)
	fmt.Println(ends, cap(ends) >= 2+1<<20)
	// Output: [3 7 12] true
}

func TestTouched(t *testing.T) {
	for _, n := range []int{0, 1, 511, 512, 513, 1 << 20} {
		s := Touched[uint64](n)
		if len(s) != n {
			t.Fatalf("Touched(%d): length %d", n, len(s))
		}
		for i, v := range s {
			if v != 0 {
				t.Fatalf("Touched(%d)[%d] = %d", n, i, v)
			}
		}
	}
	type big struct{ a [5000]byte } // over a page an element
	if b := Touched[big](3); len(b) != 3 || b[2].a[4999] != 0 {
		t.Error("Touched of elements over a page")
	}
	if e := Touched[struct{}](10); len(e) != 10 {
		t.Error("Touched of empty elements")
	}
}
