module github.com/behaves-dev/behaves

go 1.26.8

require (
	github.com/docker/docker v28.5.2+incompatible // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
