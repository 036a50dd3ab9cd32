// The etcd server the Fieldscope control plane stores its objects in: etcd's own entry point,
// built from the published go.etcd.io/etcd/server/v3 module (scripts/build-kube.sh).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
