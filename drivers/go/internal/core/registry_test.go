package core

import (
	"fmt"
	"testing"
)

// Cells is case, then library, then each parameter in its order with the values the
// library supports, less what Refuse refuses.
func TestCellsOrderNarrowingAndRefusal(t *testing.T) {
	s := &Suite{
		Name:   "toy",
		Cases:  []string{"c1", "c2"},
		Params: []Param{{Name: "p", Values: []string{"a", "b"}}, {Name: "q", Values: []string{"x", "y", "z"}}},
		Libs:   []Lib{{Name: "all"}, {Name: "narrow", Supports: map[string][]string{"q": {"z", "x"}}}},
		Refuse: func(_ *Lib, _ string, p Params) error {
			if p.Get("p") == "b" && p.Get("q") == "y" {
				return Usage("no")
			}
			return nil
		},
	}
	var got string
	for _, c := range s.Cells() {
		got += fmt.Sprintf("%s %s %s=%s %s=%s\n", c.Case, c.Lib, c.Params[0][0], c.Params[0][1],
			c.Params[1][0], c.Params[1][1])
	}
	want := ""
	for _, kase := range []string{"c1", "c2"} {
		want += kase + " all p=a q=x\n" + kase + " all p=a q=y\n" + kase + " all p=a q=z\n" +
			kase + " all p=b q=x\n" + kase + " all p=b q=z\n" +
			kase + " narrow p=a q=z\n" + kase + " narrow p=a q=x\n" +
			kase + " narrow p=b q=z\n" + kase + " narrow p=b q=x\n"
	}
	if got != want {
		t.Errorf("cells:\n%s\nwant:\n%s", got, want)
	}
}

// A parameter of some cases only is in those cases' cells only.
func TestCaseParams(t *testing.T) {
	s := &Suite{
		Name:   "toy",
		Cases:  []string{"c1", "c2"},
		Params: []Param{{Name: "p", Values: []string{"a"}}, {Name: "r", Values: []string{"x", "y"}, Cases: []string{"c2"}}},
		Libs:   []Lib{{Name: "l"}},
	}
	var got []string
	for _, c := range s.Cells() {
		got = append(got, fmt.Sprint(c.Case, " ", c.Params))
	}
	want := "[c1 [[p a]] c2 [[p a] [r x]] c2 [[p a] [r y]]]"
	if fmt.Sprint(got) != want {
		t.Errorf("cells %v, want %s", got, want)
	}
}
