package collective

import "testing"

// TestBtreeIllustration checks ncclGetBtree against the 14-rank picture in
// src/graph/trees.cc: 0 -> 8; 8 -> 4, 12; 4 -> 2, 6; 12 -> 10, 13; ...
func TestBtreeIllustration(t *testing.T) {
	parent := map[int]int{0: -1, 8: 0, 4: 8, 12: 8, 2: 4, 6: 4, 10: 12, 13: 12, 1: 2, 3: 2, 5: 6, 7: 6, 9: 10, 11: 10}
	for r := 0; r < 14; r++ {
		up, d0, d1 := btree(14, r)
		if up != parent[r] {
			t.Errorf("rank %d: parent %d, want %d", r, up, parent[r])
		}
		for _, d := range []int{d0, d1} {
			if d >= 0 && parent[d] != r {
				t.Errorf("rank %d lists child %d whose parent is %d", r, d, parent[d])
			}
		}
	}
}

// TestDoubleTree checks the double binary tree's promise for every size
// up to 64: both trees span all ranks with consistent parent/child links,
// and with an even count every rank that is interior in one tree is a
// leaf in the other.
func TestDoubleTree(t *testing.T) {
	for n := 1; n <= 64; n++ {
		for tree, f := range []func(int, int) (int, int, int){btree, dtree} {
			roots := 0
			for r := 0; r < n; r++ {
				up, d0, d1 := f(n, r)
				if up == -1 {
					roots++
				} else if u0, u1 := children(f, n, up); u0 != r && u1 != r {
					t.Fatalf("n=%d tree %d: %d's parent %d does not list it", n, tree, r, up)
				}
				for _, d := range []int{d0, d1} {
					if d >= n || (d >= 0 && func() bool { u, _, _ := f(n, d); return u != r }()) {
						t.Fatalf("n=%d tree %d: child %d of %d", n, tree, d, r)
					}
				}
			}
			if roots != 1 {
				t.Fatalf("n=%d tree %d: %d roots", n, tree, roots)
			}
		}
		if n%2 == 1 || n < 4 {
			continue
		}
		for r := 0; r < n; r++ {
			_, a0, a1 := btree(n, r)
			_, b0, b1 := dtree(n, r)
			if a0+a1 > -2 && b0+b1 > -2 {
				t.Errorf("n=%d: rank %d has children in both trees", n, r)
			}
		}
	}
}

func children(f func(int, int) (int, int, int), n, r int) (int, int) {
	_, d0, d1 := f(n, r)
	return d0, d1
}
