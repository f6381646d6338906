package models

// ParseSums is parseSums, for the tests of SHA256SUMS lines.
var ParseSums = parseSums
