package rng

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// The first 1000 outputs equal testdata/rpc/generator.txt (written by wirebench/workloads.py).
func TestGeneratorMatchesGoldenFile(t *testing.T) {
	data, err := os.ReadFile("../../../../testdata/rpc/generator.txt")
	if err != nil {
		t.Fatal(err)
	}
	var want []uint32
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		v, err := strconv.ParseUint(l, 10, 32)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, uint32(v))
	}
	if len(want) != 1000 {
		t.Fatalf("%d outputs in generator.txt, want 1000", len(want))
	}
	g := New()
	for i, w := range want {
		var got uint32
		if g, got = g.Next(); got != w {
			t.Fatalf("output %d: got %d, want %d", i, got, w)
		}
	}
	g = New()
	if _, got := g.Next(); got != want[0] {
		t.Fatalf("after a reset: got %d, want %d", got, want[0])
	}
}

func TestRandAndRandDouble(t *testing.T) {
	g := New()
	_, v := g.Next()
	if _, r := g.Rand(7); r != v%7 {
		t.Errorf("Rand(7) = %d, want %d", r, v%7)
	}
	if _, d := g.RandDouble(20); d != float64(v)*20/4294967295.0 {
		t.Errorf("RandDouble(20) = %v", d)
	}
}
