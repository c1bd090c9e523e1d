package lint

import (
	"rocelab/internal/nvue"
	"rocelab/internal/sonic"
)

// Input kinds of NVIDIA Cumulus Linux's NVUE.
const (
	KindNVUEYAML      = nvue.FormatYAML
	KindNVSet         = nvue.FormatSet
	KindNVShowQoSRoCE = nvue.FormatShowRoCE
)

// readNVUE reads an NVIDIA Cumulus Linux input: the NVUE configuration
// tree (`nv config show -o yaml`, startup.yaml), `nv show qos roce`, or a
// paste of `nv set` commands, as CONFIG_DB rows (sonic.FromNVUE), so that
// the rules that judge a SONiC switch judge it. ok is false when the text
// is none of them.
func readNVUE(name string, data []byte) (db *sonic.ConfigDB, kind string, ok bool, err error) {
	var c *nvue.Config
	switch {
	case nvue.LooksLikeYAML(data):
		c, err = nvue.ParseYAML(name, data)
	case nvue.IsShowRoCE(data):
		c, err = nvue.ParseShowRoCE(name, data)
	case nvue.IsSetList(data):
		c, err = nvue.ParseSet(name, data)
	default:
		return nil, "", false, nil
	}
	if err != nil {
		return nil, "", true, err
	}
	return sonic.FromNVUE(c), c.Format, true, nil
}
