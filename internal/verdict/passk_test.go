package verdict

import (
	"math"
	"math/big"
	"slices"
	"testing"
)

// exactPassAtK is 1 − C(n−c, k)/C(n, k) with big integers: the definition
// the product form must agree with.
func exactPassAtK(n, c, k int) float64 {
	if n-c < k {
		return 1
	}
	num := new(big.Int).Binomial(int64(n-c), int64(k))
	den := new(big.Int).Binomial(int64(n), int64(k))
	f, _ := new(big.Rat).SetFrac(num, den).Float64()
	return 1 - f
}

func TestPassAtK(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n, c, k int
		want    float64
	}{
		{3, 2, 1, 2.0 / 3},
		{3, 2, 2, 1}, // any 2 of 3 hold a passing one
		{3, 0, 1, 0},
		{3, 3, 3, 1},
		{10, 1, 1, 0.1},
		{10, 1, 5, 0.5},
		{4, 1, 2, 0.5},
	} {
		got, ok := PassAtK(tt.n, tt.c, tt.k)
		if !ok || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("PassAtK(%d, %d, %d) = %v, %v; want %v", tt.n, tt.c, tt.k, got, ok, tt.want)
		}
	}
	// Against the definition, over every small case.
	for n := 1; n <= 40; n++ {
		for c := 0; c <= n; c++ {
			for k := 1; k <= n; k++ {
				got, ok := PassAtK(n, c, k)
				if want := exactPassAtK(n, c, k); !ok || math.Abs(got-want) > 1e-9 {
					t.Fatalf("PassAtK(%d, %d, %d) = %v, %v; want %v", n, c, k, got, ok, want)
				}
			}
		}
	}
	// Where C(n, k) overflows every integer type: still finite, in [0, 1].
	if got, ok := PassAtK(10000, 37, 100); !ok || math.IsNaN(got) || got < 0 || got > 1 || math.Abs(got-exactPassAtK(10000, 37, 100)) > 1e-9 {
		t.Errorf("PassAtK(10000, 37, 100) = %v, %v; want %v", got, ok, exactPassAtK(10000, 37, 100))
	}
	for _, bad := range [][3]int{{3, 1, 4}, {3, 1, 0}, {0, 0, 1}, {3, 4, 1}, {3, -1, 1}} {
		if _, ok := PassAtK(bad[0], bad[1], bad[2]); ok {
			t.Errorf("PassAtK%v is defined", bad)
		}
	}
	if RoundPassAt(2.0/3) != 0.6667 || RoundPassAt(1) != 1 {
		t.Errorf("RoundPassAt(2/3) = %v, RoundPassAt(1) = %v", RoundPassAt(2.0/3), RoundPassAt(1))
	}
}

func TestParsePassAt(t *testing.T) {
	t.Parallel()
	got, err := ParsePassAt("10, 1,5,1")
	if err != nil || !slices.Equal(got, []int{1, 5, 10}) {
		t.Errorf("ParsePassAt = %v, %v; want [1 5 10]", got, err)
	}
	for _, bad := range []string{"", "0", "1,,2", "x", "-1", "10001", "1.5"} {
		if _, err := ParsePassAt(bad); err == nil {
			t.Errorf("ParsePassAt(%q) accepted", bad)
		}
	}
}
