//go:build !(linux && (amd64 || arm64))

package loadgen

import (
	"context"
	"net"
	"os"
)

// rxStampsAvailable says whether this build can read kernel receive
// timestamps: not on this platform, where arrivals are stamped when reads
// return.
const rxStampsAvailable = false

func dialStamped(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	return d.DialContext(ctx, network, addr)
}

func holdRxStamps() *os.File { return nil }
