package wire

import (
	"encoding/binary"
	"hash/crc32"

	"rocelab/internal/roce"
)

// ICRC computes the RoCEv2 invariant CRC of a frame whose IP header starts
// at ipOff, as Linux rxe does (rxe_icrc.c): CRC-32 over eight 0xFF bytes
// (the masked LRH), the IP header with its variant fields (IPv4 TOS, TTL and
// checksum; IPv6 traffic class, flow label and hop limit) set to ones, the
// UDP header with its checksum set to ones, the BTH with its FECN/BECN/
// reserved byte set to ones, and the rest of the UDP payload up to the
// ICRC. The frame must hold the whole UDP datagram. The result compares
// with BTH.ICRC.
func ICRC(frame []byte, ipOff int) uint32 {
	var ph icrcScratch
	return icrc(frame, ipOff, &ph)
}

// icrcScratch holds the masked copy of the invariant headers.
type icrcScratch [IPv6Len + UDPLen + roce.BTHLen]byte

func icrc(frame []byte, ipOff int, ph *icrcScratch) uint32 {
	ipLen := IPv4Len
	if frame[ipOff]>>4 == 6 {
		ipLen = IPv6Len
	} else {
		ipLen = int(frame[ipOff]&0x0f) * 4
	}
	udpOff := ipOff + ipLen
	udpLen := int(binary.BigEndian.Uint16(frame[udpOff+4:]))
	var hdr []byte
	if ipLen <= IPv6Len {
		n := copy(ph[:], frame[ipOff:udpOff+UDPLen+roce.BTHLen])
		hdr = ph[:n]
	} else { // IPv4 with long options: mask in place on a copy
		hdr = append([]byte(nil), frame[ipOff:udpOff+UDPLen+roce.BTHLen]...)
	}
	if ipLen == IPv6Len && hdr[0]>>4 == 6 {
		hdr[0] |= 0x0f // traffic class high nibble
		hdr[1], hdr[2], hdr[3] = 0xff, 0xff, 0xff
		hdr[7] = 0xff // hop limit
	} else {
		hdr[1] = 0xff                 // TOS
		hdr[8] = 0xff                 // TTL
		hdr[10], hdr[11] = 0xff, 0xff // checksum
	}
	hdr[ipLen+6], hdr[ipLen+7] = 0xff, 0xff // UDP checksum
	hdr[ipLen+UDPLen+4] = 0xff              // FECN, BECN, reserved
	crc := crc32.Update(0, crc32.IEEETable, maskedLRH[:])
	crc = crc32.Update(crc, crc32.IEEETable, hdr)
	crc = crc32.Update(crc, crc32.IEEETable, frame[udpOff+UDPLen+roce.BTHLen:udpOff+udpLen-ICRCLen])
	return crc
}

var maskedLRH = [8]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
