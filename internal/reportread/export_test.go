package reportread

import "bytes"

var CheckShape = checkShape

// DecodeCost is what decoding data would take, as the shape pass counts
// it (decodeCost).
func DecodeCost(data []byte) (int64, error) {
	w := walker{data: data}
	err := w.value(typeOfReport, "", "")
	return w.cost, err
}
