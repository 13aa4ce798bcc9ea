package sfntcheck

// checkCFF is a placeholder until CFF charstrings are bounded.
func checkCFF(cff []byte) error { return nil }
