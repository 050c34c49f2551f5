package reportread

// What the external tests (package reportread_test) need of the
// package's insides.

var CheckShape = checkShape

const MaxNesting = maxNesting

// DecodeCost is what decoding data would take, as the shape pass counts
// it (decodeCost).
func DecodeCost(data []byte) (int64, error) {
	w := walker{data: data}
	err := w.value(typeOfReport, "", "")
	return w.cost, err
}
