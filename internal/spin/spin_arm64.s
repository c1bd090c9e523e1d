#include "textflag.h"

// func Pause(n int)
TEXT ·Pause(SB), NOSPLIT|NOFRAME, $0-8
	MOVD n+0(FP), R0
	CMP $0, R0
	BLE done
loop:
	YIELD
	SUBS $1, R0, R0
	BNE loop
done:
	RET
