package docker

import (
	"github.com/docker/docker/api/types/container"

	"github.com/behaves-dev/behaves/internal/runner"
)

// The builders below are behaves' own, exported for the benchmark's floor
// (cmd/bench): the floor is only a floor if the engine does exactly the same
// work for it, so it must not keep a copy of the settings that could drift.

// ProgramContainerConfig is the configuration of the container that runs one
// invocation, for a profile whose ProgramName is set, an image (its ID and
// its cleaned, sorted VOLUME paths) and a filled program volume. The
// runtime is judged by the profile's runtime name alone, without asking the
// engine for its registration: "runsc" is gVisor in an unknown network mode
// (the network sandbox is kept), anything else is taken as runc.
func ProgramContainerConfig(prof runner.Profile, imageID string, imageVolumes []string, volume string, inv runner.Invocation, labels map[string]string) (*container.Config, *container.HostConfig) {
	return containerConfig(runner.Apply(prof), imageInfo{ID: imageID, Volumes: imageVolumes}, runtimeNameOnly(prof.Runtime), volume, inv, labels)
}

// HelperContainerConfig is the configuration of the never-started helper
// container that fills program volumes (volume k at HelperDir/k).
func HelperContainerConfig(prof runner.Profile, imageID string, imageVolumes []string, volumes []string, labels map[string]string) (*container.Config, *container.HostConfig) {
	return helperConfig(runner.Apply(prof), imageInfo{ID: imageID, Volumes: imageVolumes}, volumes, labels)
}

// HelperDir is where the helper mounts the volumes it fills: the
// destination of the copy of DeliveryArchive.
const HelperDir = helperDir

// DeliveryArchive is the tar archive a helper receives: program k's files
// (path under /program → content) under "k/".
func DeliveryArchive(programs []map[string][]byte) ([]byte, error) {
	layouts := make([][]archiveEntry, len(programs))
	for k, files := range programs {
		l, err := programLayout(files)
		if err != nil {
			return nil, err
		}
		layouts[k] = l
	}
	return deliveryTar(layouts)
}
