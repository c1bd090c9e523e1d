// Package examples embeds the documented example scenarios, so that the
// binary can run them by name and a test can check that every one loads.
package examples

import "embed"

// FS holds every example scenario (*.yaml).
//
//go:embed *.yaml
var FS embed.FS

// Default is the scenario `rocelab run` runs without a file.
const Default = "tuning-case.yaml"
