package broken

// F does not type-check.
func F() int { return "one" }
