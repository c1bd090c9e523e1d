// Package wire holds gopacket layers for RoCEv2 and Ethernet MAC control,
// a zero-allocation frame decoder for analysis, and frame builders.
//
// RoCEv2 rides in UDP to destination port 4791:
//
//	Ethernet 14 | [802.1Q 4] | IPv4 20 or IPv6 40 | UDP 8 | BTH 12 |
//	[DETH 8] [RETH 16] [AtomicETH 28] [AETH 4] [AtomicAckETH 8] [ImmDt 4] [IETH 4] |
//	payload | pad 0-3 | ICRC 4 | [FCS 4]
//
// Which extension headers follow the BTH is fixed by its opcode (see
// Opcode.Headers): RETH on WRITE FIRST/ONLY and READ REQUEST, AETH on ACK,
// ATOMIC ACK and READ RESPONSE FIRST/LAST/ONLY, ImmDt on the "with
// immediate" opcodes, AtomicETH on CMP&SWAP and FETCH&ADD, DETH on UD. The
// RoCEv2 CNP is BTH opcode 0x81 followed by 16 reserved bytes.
//
// Importing the package registers the layers with gopacket: UDP port 4791
// decodes as BTH (layers.RegisterUDPPortLayerType) and EtherType 0x8808,
// which gopacket leaves undecoded, decodes as MACControl (PFC and 802.3x
// PAUSE).
//
// Two ways to decode:
//   - gopacket.NewPacket or a gopacket.DecodingLayerParser with the layers
//     from NewDecodingLayers, for interoperability;
//   - Frame.Decode, a hand-rolled parser over the bytes that fills the same
//     layer types without allocating. It uses the IP and UDP length fields,
//     not the captured length, to place the ICRC and to size the payload, so
//     header-only captures (tcpdump -s 100) decode correctly.
package wire

import (
	"strconv"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// UDPPort is the RoCEv2 UDP destination port.
const UDPPort = 4791

// EtherTypeMACControl is the EtherType of MAC control frames (PAUSE, PFC).
const EtherTypeMACControl layers.EthernetType = 0x8808

// ICRCLen is the length of the RoCE invariant CRC trailer.
const ICRCLen = 4

// Layer types, numbered in gopacket's application range (1000-1999).
var (
	LayerTypeBTH          = gopacket.RegisterLayerType(1791, gopacket.LayerTypeMetadata{Name: "BTH", Decoder: gopacket.DecodeFunc(decodeBTH)})
	LayerTypeRETH         = gopacket.RegisterLayerType(1792, gopacket.LayerTypeMetadata{Name: "RETH", Decoder: gopacket.DecodeFunc(decodeRETH)})
	LayerTypeAETH         = gopacket.RegisterLayerType(1793, gopacket.LayerTypeMetadata{Name: "AETH", Decoder: gopacket.DecodeFunc(decodeAETH)})
	LayerTypeImmDt        = gopacket.RegisterLayerType(1794, gopacket.LayerTypeMetadata{Name: "ImmDt", Decoder: gopacket.DecodeFunc(decodeImmDt)})
	LayerTypeAtomicETH    = gopacket.RegisterLayerType(1795, gopacket.LayerTypeMetadata{Name: "AtomicETH", Decoder: gopacket.DecodeFunc(decodeAtomicETH)})
	LayerTypeAtomicAckETH = gopacket.RegisterLayerType(1796, gopacket.LayerTypeMetadata{Name: "AtomicAckETH", Decoder: gopacket.DecodeFunc(decodeAtomicAckETH)})
	LayerTypeDETH         = gopacket.RegisterLayerType(1797, gopacket.LayerTypeMetadata{Name: "DETH", Decoder: gopacket.DecodeFunc(decodeDETH)})
	LayerTypeIETH         = gopacket.RegisterLayerType(1798, gopacket.LayerTypeMetadata{Name: "IETH", Decoder: gopacket.DecodeFunc(decodeIETH)})
	LayerTypeCNP          = gopacket.RegisterLayerType(1799, gopacket.LayerTypeMetadata{Name: "CNP", Decoder: gopacket.DecodeFunc(decodeCNP)})
	LayerTypeMACControl   = gopacket.RegisterLayerType(1800, gopacket.LayerTypeMetadata{Name: "MACControl", Decoder: gopacket.DecodeFunc(decodeMACControl)})
)

func init() {
	layers.RegisterUDPPortLayerType(UDPPort, LayerTypeBTH)
	// gopacket has no decoder for 0x8808; claim it only while that holds.
	if layers.EthernetTypeMetadata[EtherTypeMACControl].DecodeWith == nil {
		layers.EthernetTypeMetadata[EtherTypeMACControl] = layers.EnumMetadata{
			DecodeWith: gopacket.DecodeFunc(decodeMACControl),
			Name:       "MACControl",
			LayerType:  LayerTypeMACControl,
		}
	}
}

// A DecodeError says which header could not be decoded and why.
type DecodeError struct {
	Layer string // e.g. "BTH", "IPv4"
	Need  int    // bytes the header needs
	Have  int    // bytes available
	Msg   string // set instead of Need/Have for other faults
}

// Error formats the fault as "BTH: truncated: need 12 bytes, have 8".
func (e *DecodeError) Error() string {
	if e.Msg != "" {
		return e.Layer + ": " + e.Msg
	}
	return e.Layer + ": truncated: need " + strconv.Itoa(e.Need) + " bytes, have " + strconv.Itoa(e.Have)
}

func short(layer string, need, have int) error {
	return &DecodeError{Layer: layer, Need: need, Have: have}
}
