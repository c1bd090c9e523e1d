#include "textflag.h"

// func Line(addr uintptr)
TEXT ·Line(SB), NOSPLIT|NOFRAME, $0-8
	MOVD addr+0(FP), R0
	PRFM (R0), PLDL1KEEP
	RET

// func Object(addr, hint uintptr)
TEXT ·Object(SB), NOSPLIT|NOFRAME, $0-16
	MOVD addr+0(FP), R0
	MOVD hint+8(FP), R1
	PRFM (R0), PLDL1KEEP
	PRFM 64(R0), PLDL1KEEP
	PRFM (R1), PLDL1KEEP
	RET
