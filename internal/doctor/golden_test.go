package doctor

import "flag"

// update rewrites golden files instead of comparing against them:
// go test ./internal/doctor -run Golden -update
var update = flag.Bool("update", false, "rewrite golden files")
