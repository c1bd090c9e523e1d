package roce

import "strconv"

// AckKind classifies an AETH syndrome.
type AckKind uint8

// Syndrome classes.
const (
	KindACK AckKind = iota
	KindRNRNAK
	KindReserved
	KindNAK
)

// NAK codes (syndrome low five bits when Kind is KindNAK).
const (
	NAKPSNSequenceError   = 0
	NAKInvalidRequest     = 1
	NAKRemoteAccessError  = 2
	NAKRemoteOperationErr = 3
	NAKInvalidRDRequest   = 4
)

// Syndromes as whole bytes, for building and matching.
const (
	SyndromeACKUnlimited      uint8 = 0x1f // ACK, no credit count
	SyndromeRNRNAK            uint8 = 0x20 // | timer
	SyndromePSNSequenceError  uint8 = 0x60
	SyndromeInvalidRequest    uint8 = 0x61
	SyndromeRemoteAccessError uint8 = 0x62
	SyndromeRemoteOpError     uint8 = 0x63
	SyndromeInvalidRDRequest  uint8 = 0x64
)

// SyndromeKind returns the class of syndrome s.
func SyndromeKind(s uint8) AckKind { return AckKind(s >> 5 & 3) }

// SyndromeName names a syndrome: "ACK", "RNR NAK", "NAK PSN sequence
// error", "NAK remote access error", ...
func SyndromeName(s uint8) string {
	switch SyndromeKind(s) {
	case KindACK:
		return "ACK"
	case KindRNRNAK:
		return "RNR NAK"
	case KindNAK:
		switch s & 0x1f {
		case NAKPSNSequenceError:
			return "NAK PSN sequence error"
		case NAKInvalidRequest:
			return "NAK invalid request"
		case NAKRemoteAccessError:
			return "NAK remote access error"
		case NAKRemoteOperationErr:
			return "NAK remote operational error"
		case NAKInvalidRDRequest:
			return "NAK invalid RD request"
		}
		return "NAK code " + strconv.Itoa(int(s&0x1f))
	}
	return "reserved syndrome 0x" + strconv.FormatUint(uint64(s), 16)
}
