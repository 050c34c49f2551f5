// Package pin owns `behaves pin`: it finds the image of every profile and
// build stage in a spec's bytes, asks the registries the caller allows for
// the digest each image's tag points to now, and rewrites only those
// scalars as name:tag@sha256:<digest>, so that a person writes a tag and
// gets a pin.
//
// The file is edited in place at the positions yaml.v3 gives the image
// scalars (line and column), never re-marshalled: comments, order, quoting
// and every other byte stay as they were, and the result is parsed again
// and compared node by node with the original before it is handed back.
//
// It is the one package of behaves that reads registry credentials: the
// Docker config (~/.docker/config.json, $DOCKER_CONFIG) and its credential
// helpers, through go-containerregistry's authn.DefaultKeychain, as
// `docker pull` would. A person or a scheduled job runs pin; run, publish
// and the action never import it (their import tests say so), so they
// still read no credentials.
//
// The spec is untrusted text: the registries asked are only the ones the
// caller allows, plain HTTP is spoken only to a loopback registry, and
// what the spec wrote is returned for the caller to print escaped.
package pin
