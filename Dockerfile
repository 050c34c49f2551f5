# The behaves GitHub Action's image: behaves as one static binary, CA
# certificates and an empty /tmp, FROM scratch. Container actions run as root
# (the runner mounts the workspace and the Docker socket), so there is no USER.
#
# A build pulls one base image, the Go toolchain image of the builder stage; the
# final stage is scratch and takes the CA certificates from the builder.
#
#   docker build -t behaves-action .                   # as the runner's `image: Dockerfile` does
#   docker build --network none --build-arg GOPROXY=off \
#     --build-arg BUILDER_IMAGE=<local image with Go and a filled module cache> .
#                                                      # offline: scripts/action-image.sh
#
# Build arguments:
#   BUILDER_IMAGE  the builder stage's image: Go (the go.mod version, found
#                  first on PATH), /etc/ssl/certs/ca-certificates.crt, a shell.
#                  The default pins the Go image by its digest (the tag's
#                  multi-platform index), so `image: Dockerfile` builds on the
#                  same bytes in every job; a release build resolves the digest
#                  again when it builds (examples/workflows/release.yml). See
#                  docs/action-image.md for where this digest comes from.
#   GOPROXY        where the modules come from: the default proxy, or "off"
#                  when BUILDER_IMAGE already holds them in its module cache
#                  (GOMODCACHE), as the offline build's image does.
ARG BUILDER_IMAGE=golang:1.26.8-bookworm@sha256:a688600ca24f8a4d3ca77f95b0dd40704a9fc787c826660eb7ba0b641b8b175d

FROM ${BUILDER_IMAGE} AS build
ARG GOPROXY=https://proxy.golang.org,direct
# GOTOOLCHAIN=local: never download another toolchain; a builder whose Go is
# older than go.mod's fails here instead. -buildvcs=false: the runner builds
# from a tarball without .git, and the version then comes from the committed
# internal/cli/VERSION. CGO_ENABLED=0: a static binary for scratch.
ENV CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS="-mod=readonly -buildvcs=false" GOPROXY=${GOPROXY}
WORKDIR /src
# behaves-post is the same binary under the name action.yml's post-entrypoint
# runs: the runner passes the post step the main step's args, so behaves
# dispatches on the name it was started by (cli.Args).
# The modules first, in a layer of their own: a source change reuses it.
COPY go.mod go.sum ./
RUN go version && go mod download && go mod verify
COPY . .
RUN go build -trimpath -ldflags="-s -w" -o /out/usr/local/bin/behaves . \
	&& /out/usr/local/bin/behaves version \
	&& ln -s behaves /out/usr/local/bin/behaves-post \
	&& mkdir -p /out/tmp /out/etc/ssl/certs \
	&& chmod 1777 /out/tmp \
	&& cp /etc/ssl/certs/ca-certificates.crt /out/etc/ssl/certs/

FROM scratch
COPY --from=build /out/ /
ENV PATH=/usr/local/bin SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
LABEL org.opencontainers.image.title="behaves" \
	org.opencontainers.image.description="Judges untrusted programs in hardened Docker containers: the behaves GitHub Action" \
	org.opencontainers.image.source="https://github.com/behaves-dev/behaves"
ENTRYPOINT ["/usr/local/bin/behaves"]
