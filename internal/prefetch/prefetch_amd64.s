#include "textflag.h"

// func Line(addr uintptr)
TEXT ·Line(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ addr+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func Object(addr, hint uintptr)
TEXT ·Object(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ addr+0(FP), AX
	MOVQ hint+8(FP), BX
	PREFETCHT0 (AX)
	PREFETCHT0 64(AX)
	PREFETCHT0 (BX)
	RET
