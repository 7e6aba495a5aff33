package main

import (
	"os"
	"testing"
)

// asPgseqEnv makes the test binary run as pgseq: bench ab and bench
// calibrate run pgseq binaries (the base and the running one), and in
// tests the running one is this test binary.
const asPgseqEnv = "PGSEQ_TEST_BINARY_IS_PGSEQ"

func TestMain(m *testing.M) {
	if os.Getenv(asPgseqEnv) == "1" {
		main()
		return
	}
	// The binaries bench ab starts inherit it: they run as pgseq.
	os.Setenv(asPgseqEnv, "1")
	os.Exit(m.Run())
}
