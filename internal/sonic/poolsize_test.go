package sonic

import "testing"

// PoolSize reads a size written with spaces around the number (a
// hand-edited config_db) as that number, as the rules that weigh the pool
// did before they shared PoolSize.
func TestPoolSizePadded(t *testing.T) {
	db, err := Parse("frag", []byte(`{"BUFFER_POOL": {
        "ingress_lossless_pool": {"size": " 12766208 ", "type": "ingress", "mode": "dynamic"},
        "egress_lossy_pool": {"size": "lots", "type": "egress", "mode": "dynamic"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if n, at, ok := db.PoolSize("ingress_lossless_pool"); !ok || n != 12766208 || at.Line == 0 {
		t.Errorf("padded size: got %d, %+v, %v; want 12766208 read at a line", n, at, ok)
	}
	if _, _, ok := db.PoolSize("egress_lossy_pool"); ok {
		t.Error("size \"lots\": got a size, want none")
	}
	if _, _, ok := db.PoolSize("absent"); ok {
		t.Error("absent pool: got a size, want none")
	}
}
