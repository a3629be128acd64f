package physics

// Quantize is the test helper quantize, for the external tests over the
// benchmark scenes (scenes_test.go), which cannot live in package physics:
// internal/benchscene imports it.
var Quantize = quantize
