// Package roce holds the RoCEv2 protocol facts that both the twin and the
// packet decoders speak: BTH opcodes and the extension headers each
// carries, AETH syndromes, and 24-bit PSN arithmetic. It imports nothing
// of the simulator or of gopacket, so the twin (internal/packet, internal/nic)
// and the capture side (internal/wire, internal/capture) share one
// definition. Sources: IBTA Volume 1 §9 (BTH, AETH, PSN), the kernel's
// ib_pack.h and rdma-core's rxe opcode table.
package roce
