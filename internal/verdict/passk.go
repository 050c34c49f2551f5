package verdict

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// PassAtK is the unbiased estimator of pass@k of Chen et al. (2021),
// "Evaluating Large Language Models Trained on Code": the chance that at
// least one of k samples drawn without replacement from n, of which c
// passed, passes: 1 − C(n−c, k) / C(n, k). It is computed as the product
// 1 − Π_{i=n−c+1..n} (1 − k/i), which never forms a binomial coefficient
// and so cannot overflow. ok is false when k is not in 1..n (the estimate
// is not defined) or c is not in 0..n.
func PassAtK(n, c, k int) (p float64, ok bool) {
	if k < 1 || k > n || c < 0 || c > n {
		return 0, false
	}
	if n-c < k {
		return 1, true // every draw of k holds a passing sample
	}
	prod := 1.0
	for i := n - c + 1; i <= n; i++ {
		prod *= 1 - float64(k)/float64(i)
	}
	return 1 - prod, true
}

// RoundPassAt rounds a pass@k value for reports: 4 decimals, as readers
// compare them, and exact where the value is (0, 1).
func RoundPassAt(p float64) float64 { return math.Round(p*1e4) / 1e4 }

// MaxPassAtK bounds a k of --pass-at: beyond it no suite of samples here
// (--max-cases 10000 invocations) has enough.
const MaxPassAtK = 10000

// MaxPassAtKs bounds how many values of k one run asks for.
const MaxPassAtKs = 16

// ParsePassAt parses a --pass-at list ("1,5,10"): positive integers up to
// MaxPassAtK, at most 16 of them; duplicates are dropped and the rest kept
// in increasing order.
func ParsePassAt(s string) ([]int, error) {
	var ks []int
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, errors.New("an empty k: give positive integers separated by commas, e.g. 1,5,10")
		}
		k, err := strconv.Atoi(f)
		if err != nil || k < 1 || k > MaxPassAtK {
			return nil, fmt.Errorf("k %q is not an integer from 1 to %d", f, MaxPassAtK)
		}
		if !seen[k] {
			seen[k] = true
			ks = append(ks, k)
		}
	}
	if len(ks) > MaxPassAtKs {
		return nil, fmt.Errorf("%d values of k: at most %d", len(ks), MaxPassAtKs)
	}
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks, nil
}
