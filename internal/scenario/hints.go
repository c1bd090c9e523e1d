package scenario

import "rocelab/internal/spell"

// keyAliases are the words other tools and guides use for a scenario's keys
// and values (SONiC's WRED profile, ns-3's and vendors' ECN parameters,
// fault names in incident reports), so that an error can name the key meant.
var keyAliases = map[string]string{
	"min_th": "kmin", "min_threshold": "kmin", "green_min_threshold": "kmin", "ecn_min": "kmin",
	"max_th": "kmax", "max_threshold": "kmax", "green_max_threshold": "kmax", "ecn_max": "kmax",
	"probability": "pmax", "max_probability": "pmax", "green_drop_probability": "pmax", "mark_probability": "pmax",
	"size": "bytes", "message_size": "bytes", "length": "bytes",
	"dscp_to_tc": "dscp_to_priority", "dscp_to_tc_map": "dscp_to_priority", "dscp_map": "dscp_to_priority",
	"nccl_env": "nccl", "env": "nccl", "environment": "nccl",
	"link_flap": "link_down", "flap": "link_down", "packet_loss": "loss", "drop": "loss",
	"pfc_storm": "pause_storm", "storm": "pause_storm",
	"leafs": "leaves", "leaf": "leaves", "tors": "leaves", "hosts_per_tor": "hosts_per_leaf", "hosts_per_rack": "hosts_per_leaf",
}

// hint is the end of an error naming what is expected: which of names
// the misspelt got was most likely meant to be, if one stands out.
func hint(got string, names []string) string { return spell.Hint(got, names, keyAliases) }
