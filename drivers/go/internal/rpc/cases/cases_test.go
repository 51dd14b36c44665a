package cases

import (
	"math"
	"testing"
)

func TestEvalArithmeticEdgeCases(t *testing.T) {
	for _, c := range []struct {
		op          uint32
		left, right int32
		want        int32
	}{
		{3, math.MinInt32, -1, math.MaxInt32},
		{4, math.MinInt32, -1, math.MaxInt32},
		{3, 7, 0, math.MaxInt32},
		{4, 7, 0, math.MaxInt32},
		{3, -7, 2, -3},
		{4, -7, 2, -1},
		{0, math.MaxInt32, 1, math.MinInt32},
		{2, 65536, 65536, 0},
	} {
		if got := Apply(c.op, c.left, c.right); got != c.want {
			t.Errorf("Apply(%d, %d, %d) = %d, want %d", c.op, c.left, c.right, got, c.want)
		}
	}
}

func TestRescore(t *testing.T) {
	if got := Rescore(5, []byte(" a cat b ")); got != 50000 {
		t.Errorf("cat: %v", got)
	}
	if got := Rescore(5, []byte(" cat dog ")); got != 5 {
		t.Errorf("cat and dog: %v", got)
	}
	if got := Rescore(5, []byte(" cats dog ")); got != 0.0005 {
		t.Errorf("dog: %v", got)
	}
}
