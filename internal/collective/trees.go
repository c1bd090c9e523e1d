package collective

// btree returns rank's parent and children in NCCL's binary tree over n
// ranks rooted at 0 (src/graph/trees.cc ncclGetBtree): leaves and inner
// nodes alternate, so that a mirrored or shifted copy makes every inner
// node a leaf. -1 means none.
func btree(n, rank int) (up, down0, down1 int) {
	bit := 1
	for bit < n {
		if bit&rank != 0 {
			break
		}
		bit <<= 1
	}
	if rank == 0 {
		if n > 1 {
			return -1, -1, bit >> 1
		}
		return -1, -1, -1
	}
	up = (rank ^ bit) | (bit << 1)
	if up >= n {
		up = rank ^ bit
	}
	low := bit >> 1
	if low == 0 {
		return up, -1, -1
	}
	down0 = rank - low
	down1 = rank + low
	for down1 >= n {
		if low == 0 {
			down1 = -1
		} else {
			down1 = rank + low
		}
		low >>= 1
	}
	return up, down0, down1
}

// dtree returns rank's parent and children in the second tree of NCCL's
// double binary tree (ncclGetDtree): the first tree mirrored when n is
// even, shifted by one when n is odd.
func dtree(n, rank int) (up, down0, down1 int) {
	if n%2 == 1 {
		u, d0, d1 := btree(n, (rank-1+n)%n)
		shift := func(x int) int {
			if x == -1 {
				return -1
			}
			return (x + 1) % n
		}
		return shift(u), shift(d0), shift(d1)
	}
	u, d0, d1 := btree(n, n-1-rank)
	mirror := func(x int) int {
		if x == -1 {
			return -1
		}
		return n - 1 - x
	}
	return mirror(u), mirror(d0), mirror(d1)
}
