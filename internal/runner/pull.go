package runner

import (
	"context"
	"time"
)

// PullStatus says what a pull did with an image that it did not fail on.
type PullStatus string

// The outcomes of a PullImage that returned no error.
const (
	// PullPresent: the engine already had the image; nothing was fetched.
	PullPresent PullStatus = "present"
	// PullPulled: the image was fetched by its digest and now carries it.
	PullPulled PullStatus = "pulled"
)

// ImagePuller is a Sandbox that can pull an image in the pull phase, before
// scoring (*docker.Sandbox), and that remembers a failure as the reason its
// image is missing when scoring comes to it.
type ImagePuller interface {
	PullImage(ctx context.Context, ref string, timeout time.Duration) (PullStatus, error)
}
