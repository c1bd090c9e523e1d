package exporter

import (
	"errors"
	"io/fs"
)

// Tree layout of a host written by `rocelab run --out-sysfs` and used by
// the fixtures: the sysfs tree, then the text of the tools whose state a
// real host gives only through an ioctl or netlink.
const (
	TreeSys     = "sys"           // --path.sysfs
	TreeEthtool = "ethtool-stats" // --path.ethtool-stats: <netdev>.txt, ethtool -S text
	TreeQoS     = "mlnx_qos"      // --path.mlnx-qos: <netdev>.txt, mlnx_qos -i text
)

// TreeHost returns the host a tree in the layout above describes.
func TreeHost(tree fs.FS) (Host, error) {
	sys, err := fs.Sub(tree, TreeSys)
	if err != nil {
		return Host{}, err
	}
	eth, err := fs.Sub(tree, TreeEthtool)
	if err != nil {
		return Host{}, err
	}
	qos, err := fs.Sub(tree, TreeQoS)
	if err != nil {
		return Host{}, err
	}
	return Host{Sys: sys, Ethtool: EthtoolDir{eth}, QoS: MlnxQoSDir{qos}}, nil
}

// noEthtool is the ethtool source of a host whose statistics are not
// available at all (the ioctl socket could not be opened).
type noEthtool struct{ err error }

func (n noEthtool) Stats(string) ([]Stat, error) { return nil, n.err }

// UnavailableEthtool returns a source that fails every read with err, so
// that each netdev shows the error in the error metric.
func UnavailableEthtool(err error) EthtoolSource {
	if err == nil {
		err = errors.New("ethtool statistics unavailable")
	}
	return noEthtool{err}
}
