//go:build tools

// Package tools pins the two programs this module exists to build; the build tag
// keeps it out of every build (main packages cannot be imported), while `go mod
// tidy` still records their dependencies in go.mod and go.sum.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
