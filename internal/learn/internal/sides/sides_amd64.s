//go:build amd64

#include "textflag.h"

// func splitBlocks(src []uint64, side *uint8, nside int, shift uint, out0 *uint64, n0max int, out1 *uint64, n1max int) (done, n0 int)
//
// Per block of eight entries: the rows (entry >> shift, low 32 bits) are
// checked against nside, their side bytes gathered as dwords (the word
// at side+row; Pad bytes of capacity make the last row's read safe), the
// entries with side byte 0 compressed to out0 and the others to out1 by
// masked stores of exactly their count, after checking both streams'
// room.
TEXT ·splitBlocks(SB), NOSPLIT, $0-96
	MOVQ src_base+0(FP), SI
	MOVQ src_len+8(FP), CX
	MOVQ side+24(FP), DX
	MOVQ nside+32(FP), R8
	MOVQ shift+40(FP), R11
	MOVQ out0+48(FP), DI
	MOVQ out1+64(FP), R9
	MOVQ $0xffffffff, R12
	CMPQ R8, R12
	CMOVQHI R12, R8           // rows are 32-bit: a larger nside admits all but 2³²−1
	VPBROADCASTD R8, Y14      // nside in every dword lane
	MOVQ R11, X15             // shift count
	MOVL $0xff, R12
	VPBROADCASTD R12, Y13     // side byte mask
	XORQ AX, AX               // entries done
	XORQ BX, BX               // entries written to out0
	XORQ R10, R10             // entries written to out1

loop:
	LEAQ 8(AX), R11
	CMPQ R11, CX
	JGT  done
	VMOVDQU64 (SI)(AX*8), Z0
	VPSRLQ    X15, Z0, Z1
	VPMOVQD   Z1, Y1          // the eight rows
	VPCMPUD   $1, Y14, Y1, K1 // row < nside
	KMOVW     K1, R12
	CMPL      R12, $0xff
	JNE       done
	VPXORD    Y2, Y2, Y2
	VPGATHERDD (DX)(Y1*1), K1, Y2
	VPTESTMD  Y13, Y2, K2     // side byte ≠ 0: out1
	KMOVW     K2, R12         // mask of out1's entries
	MOVL      R12, R13
	XORL      $0xff, R13      // mask of out0's entries
	POPCNTL   R13, R8         // their count
	LEAQ      (BX)(R8*1), R11
	CMPQ      R11, n0max+56(FP)
	JGT       done
	MOVQ      R10, R11
	SUBQ      R8, R11
	ADDQ      $8, R11
	CMPQ      R11, n1max+72(FP)
	JGT       done
	KMOVW     R13, K3
	VPCOMPRESSQ Z0, K3, Z3
	MOVL      $0xff, R11
	PEXTL     R13, R11, R11   // the low count bits
	KMOVW     R11, K4
	VMOVDQU64 Z3, K4, (DI)(BX*8)
	VPCOMPRESSQ Z0, K2, Z4
	MOVL      $0xff, R11
	PEXTL     R12, R11, R11
	KMOVW     R11, K5
	VMOVDQU64 Z4, K5, (R9)(R10*8)
	ADDQ      R8, BX
	ADDQ      $8, R10
	SUBQ      R8, R10
	ADDQ      $8, AX
	JMP       loop

done:
	VZEROUPPER
	MOVQ AX, done+80(FP)
	MOVQ BX, n0+88(FP)
	RET
