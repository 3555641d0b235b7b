//go:build amd64

#include "textflag.h"

// The AVX2 loops of vec_amd64.go. Each processes whole blocks of four
// float64 (sixteen for dotsBlocks and sqDistsBlocks) and returns how many
// elements it processed; every lane goes
// through exactly the operations of the Go loop it replaces, in the same
// order (separate multiplies and adds, never fused).

// func expBlocks(v []float64, c *[13][4]float64) int
// c: n/ln2, shift, ln2N1, ln2N2, -700, 700, 1/720, 1/120, 1/24, 1/6,
// 1/2, index mask (int64), 1023·n (int64), 32 bytes each.
TEXT ·expBlocks(SB), NOSPLIT, $0-40
	MOVQ v_base+0(FP), SI
	MOVQ v_len+8(FP), CX
	MOVQ c+24(FP), DX
	LEAQ ·expHi(SB), R8
	LEAQ ·expLo(SB), R9
	XORQ AX, AX
	VMOVUPD 0(DX), Y15
	VMOVUPD 32(DX), Y14
	VMOVUPD 64(DX), Y13
	VMOVUPD 96(DX), Y12

exploop:
	LEAQ 4(AX), BX
	CMPQ BX, CX
	JGT  expdone
	VMOVUPD (SI)(AX*8), Y0
	VCMPPD $0x1d, 128(DX), Y0, Y1 // x ≥ −700, ordered
	VCMPPD $0x12, 160(DX), Y0, Y2 // x ≤ 700, ordered
	VANDPD Y1, Y2, Y1
	VMOVMSKPD Y1, BX
	CMPQ BX, $15
	JNE  expdone
	VMULPD Y15, Y0, Y1           // x·(n/ln2)
	VADDPD Y14, Y1, Y1           // t = x·(n/ln2) + shift
	VSUBPD Y14, Y1, Y2           // kf = t − shift
	VPSUBQ Y14, Y1, Y3           // k = bits(t) − bits(shift) = int64(kf)
	VMULPD Y13, Y2, Y4
	VSUBPD Y4, Y0, Y4            // x − kf·ln2N1
	VMULPD Y12, Y2, Y5
	VSUBPD Y5, Y4, Y4            // r
	VMULPD 192(DX), Y4, Y5       // r·(1/720)
	VADDPD 224(DX), Y5, Y5       // 1/120 + …
	VMULPD Y4, Y5, Y5
	VADDPD 256(DX), Y5, Y5       // 1/24 + …
	VMULPD Y4, Y5, Y5
	VADDPD 288(DX), Y5, Y5       // 1/6 + …
	VMULPD Y4, Y5, Y5
	VADDPD 320(DX), Y5, Y5       // 1/2 + …
	VMULPD Y4, Y4, Y6            // r·r
	VMULPD Y5, Y6, Y6            // r·r·(…)
	VADDPD Y6, Y4, Y6            // q
	VPAND 352(DX), Y3, Y7        // j = k & (n−1)
	VPCMPEQQ Y8, Y8, Y8
	VGATHERQPD Y8, (R8)(Y7*8), Y9  // hi = expHi[j]
	VPCMPEQQ Y8, Y8, Y8
	VGATHERQPD Y8, (R9)(Y7*8), Y10 // lo = expLo[j]
	VMULPD Y6, Y9, Y11           // hi·q
	VADDPD Y10, Y11, Y11         // hi·q + lo
	VADDPD Y11, Y9, Y11          // hi + (hi·q + lo)
	VPADDQ 384(DX), Y3, Y3       // k + 1023·n, positive for x ≥ −700
	VPSRLQ $7, Y3, Y3            // k>>7 + 1023
	VPSLLQ $52, Y3, Y3           // 2^(k>>7)
	VMULPD Y3, Y11, Y11
	VMOVUPD Y11, (SI)(AX*8)
	ADDQ $4, AX
	JMP  exploop

expdone:
	VZEROUPPER
	MOVQ AX, ret+32(FP)
	RET

// func dotsBlocks(d, xt []float64, n int, x []float64) int
// Sixteen outputs per pass over the columns, so that four independent
// chains of additions overlap; the Go loop does the last len(d) mod 16.
TEXT ·dotsBlocks(SB), NOSPLIT, $0-88
	MOVQ d_base+0(FP), DI
	MOVQ d_len+8(FP), CX
	ANDQ $-16, CX
	MOVQ xt_base+24(FP), SI
	MOVQ n+48(FP), R10
	SHLQ $3, R10
	MOVQ x_base+56(FP), R11
	MOVQ x_len+64(FP), R12
	XORQ AX, AX

dots16:
	CMPQ AX, CX
	JGE  dotsdone
	VXORPD Y0, Y0, Y0            // +0
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	LEAQ (SI)(AX*8), BX          // &xt[j]
	XORQ DX, DX

dots16c:
	VBROADCASTSD (R11)(DX*8), Y1
	VMULPD (BX), Y1, Y5          // x_c·xt[c·n + j]
	VMULPD 32(BX), Y1, Y6
	VMULPD 64(BX), Y1, Y7
	VMULPD 96(BX), Y1, Y8
	VADDPD Y5, Y0, Y0
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3
	VADDPD Y8, Y4, Y4
	ADDQ R10, BX
	INCQ DX
	CMPQ DX, R12
	JLT  dots16c
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y2, 32(DI)(AX*8)
	VMOVUPD Y3, 64(DI)(AX*8)
	VMOVUPD Y4, 96(DI)(AX*8)
	ADDQ $16, AX
	JMP  dots16

dotsdone:
	VZEROUPPER
	MOVQ CX, ret+80(FP)
	RET

// func kernelArgBlocks(d, xsq []float64, ng, si float64) int
TEXT ·kernelArgBlocks(SB), NOSPLIT, $0-72
	MOVQ d_base+0(FP), DI
	MOVQ d_len+8(FP), CX
	ANDQ $-4, CX
	MOVQ xsq_base+24(FP), SI
	VBROADCASTSD ng+48(FP), Y14
	VBROADCASTSD si+56(FP), Y13
	XORQ AX, AX

argloop:
	CMPQ AX, CX
	JGE  argdone
	VMOVUPD (SI)(AX*8), Y0
	VADDPD Y0, Y13, Y0           // si + xsq[j]
	VMOVUPD (DI)(AX*8), Y1
	VADDPD Y1, Y1, Y1            // 2·d[j], exact
	VSUBPD Y1, Y0, Y0
	VMULPD Y0, Y14, Y0           // ng·(…)
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	JMP  argloop

argdone:
	VZEROUPPER
	MOVQ CX, ret+64(FP)
	RET

// func toFloat32Blocks(out []float32, d []float64) int
TEXT ·toFloat32Blocks(SB), NOSPLIT, $0-56
	MOVQ out_base+0(FP), DI
	MOVQ d_base+24(FP), SI
	MOVQ d_len+32(FP), CX
	ANDQ $-4, CX
	XORQ AX, AX

f32loop:
	CMPQ AX, CX
	JGE  f32done
	VCVTPD2PSY (SI)(AX*8), X0    // round to nearest, as float32(v)
	VMOVUPS X0, (DI)(AX*4)
	ADDQ $4, AX
	JMP  f32loop

f32done:
	VZEROUPPER
	MOVQ CX, ret+48(FP)
	RET

// func sqDistsBlocks(d2, sv []float64, ns int, x []float64) int
// Sixteen outputs per pass, as dotsBlocks.
TEXT ·sqDistsBlocks(SB), NOSPLIT, $0-88
	MOVQ d2_base+0(FP), DI
	MOVQ d2_len+8(FP), CX
	ANDQ $-16, CX
	MOVQ sv_base+24(FP), SI
	MOVQ ns+48(FP), R10
	SHLQ $3, R10
	MOVQ x_base+56(FP), R11
	MOVQ x_len+64(FP), R12
	XORQ AX, AX

sq16:
	CMPQ AX, CX
	JGE  sqdone
	VXORPD Y0, Y0, Y0            // +0
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	LEAQ (SI)(AX*8), BX          // &sv[s]
	XORQ DX, DX

sq16c:
	VBROADCASTSD (R11)(DX*8), Y1
	VSUBPD (BX), Y1, Y5          // e = x_c − sv[c·ns + s]
	VSUBPD 32(BX), Y1, Y6
	VSUBPD 64(BX), Y1, Y7
	VSUBPD 96(BX), Y1, Y8
	VMULPD Y5, Y5, Y5
	VMULPD Y6, Y6, Y6
	VMULPD Y7, Y7, Y7
	VMULPD Y8, Y8, Y8
	VADDPD Y5, Y0, Y0
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3
	VADDPD Y8, Y4, Y4
	ADDQ R10, BX
	INCQ DX
	CMPQ DX, R12
	JLT  sq16c
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y2, 32(DI)(AX*8)
	VMOVUPD Y3, 64(DI)(AX*8)
	VMOVUPD Y4, 96(DI)(AX*8)
	ADDQ $16, AX
	JMP  sq16

sqdone:
	VZEROUPPER
	MOVQ CX, ret+80(FP)
	RET

// func scaleBlocks(v []float64, a float64) int
TEXT ·scaleBlocks(SB), NOSPLIT, $0-40
	MOVQ v_base+0(FP), DI
	MOVQ v_len+8(FP), CX
	ANDQ $-4, CX
	VBROADCASTSD a+24(FP), Y1
	XORQ AX, AX

scloop:
	CMPQ AX, CX
	JGE  scdone
	VMOVUPD (DI)(AX*8), Y0
	VMULPD Y0, Y1, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	JMP  scloop

scdone:
	VZEROUPPER
	MOVQ CX, ret+32(FP)
	RET

// func candBlocks(lowSign, g []float64, gmax float64, cand []int32, gain []float64, lanes *[4]float64) int
// The solver's candidate scan on whole blocks of four: v = lowSign[t]·g[t]
// (each lane's running maximum kept in lanes by v ≥ max), gradDiff =
// gmax + v, and the t with gradDiff > 0 and their gradDiff packed, in
// increasing t, into cand and gain (four stores per block, the count
// advanced by the block's passes). Returns the count.
TEXT ·candBlocks(SB), NOSPLIT, $0-120
	MOVQ lowSign_base+0(FP), SI
	MOVQ lowSign_len+8(FP), CX
	ANDQ $-4, CX
	MOVQ g_base+24(FP), DI
	VBROADCASTSD gmax+48(FP), Y15
	MOVQ cand_base+56(FP), R8
	MOVQ gain_base+80(FP), R9
	MOVQ lanes+104(FP), R10
	VMOVUPD (R10), Y14           // lanes' running maxima
	LEAQ ·candPerm(SB), R11
	LEAQ ·candOff(SB), R12
	VXORPD Y13, Y13, Y13
	XORQ AX, AX                  // t
	XORQ BX, BX                  // count

candloop:
	CMPQ AX, CX
	JGE  canddone
	VMOVUPD (SI)(AX*8), Y0
	VMULPD (DI)(AX*8), Y0, Y0    // v = lowSign[t]·g[t]
	VCMPPD $0x1d, Y14, Y0, Y1    // v ≥ max, ordered (NaN never)
	VBLENDVPD Y1, Y0, Y14, Y14
	VADDPD Y15, Y0, Y2           // gradDiff = gmax + v
	VCMPPD $0x1e, Y13, Y2, Y3    // gradDiff > 0, ordered
	VMOVMSKPD Y3, DX
	MOVQ DX, R13
	SHLQ $5, R13
	VMOVDQU (R11)(R13*1), Y4
	VPERMPS Y2, Y4, Y5           // the passing gradDiff, packed
	VMOVUPD Y5, (R9)(BX*8)
	MOVQ DX, R13
	SHLQ $4, R13
	VMOVDQU (R12)(R13*1), X6     // their lanes
	VMOVD AX, X7
	VPBROADCASTD X7, X7
	VPADDD X7, X6, X6            // their t
	VMOVDQU X6, (R8)(BX*4)
	POPCNTQ DX, DX
	ADDQ DX, BX
	ADDQ $4, AX
	JMP  candloop

canddone:
	VMOVUPD Y14, (R10)
	VZEROUPPER
	MOVQ BX, ret+112(FP)
	RET

// func gradBlocks(g, upSign, fs []float64, idx []int, ri, rj []float32, dI, dJ float64, l *gradLanes) int
// The solver's gradient update on whole blocks of four, the kernel rows
// read through idx by scalar loads (gathers cost more here), each lane
// keeping the largest upSign[t]·g[t] and the last t reaching it.
TEXT ·gradBlocks(SB), NOSPLIT, $0-176
	MOVQ g_base+0(FP), DI
	MOVQ g_len+8(FP), CX
	ANDQ $-4, CX
	MOVQ upSign_base+24(FP), SI
	MOVQ fs_base+48(FP), R8
	MOVQ idx_base+72(FP), R9
	MOVQ ri_base+96(FP), R10
	MOVQ rj_base+120(FP), R11
	VBROADCASTSD dI+144(FP), Y14
	VBROADCASTSD dJ+152(FP), Y13
	MOVQ l+160(FP), R12
	VMOVUPD 0(R12), Y12          // lanes' largest products
	VMOVDQU 32(R12), Y11         // and their t
	LEAQ ·laneConsts(SB), BX
	VMOVDQU 0(BX), Y10           // t of each lane
	VMOVDQU 32(BX), Y9           // 4
	XORQ AX, AX

gradloop:
	CMPQ AX, CX
	JGE  graddone
	MOVQ (R9)(AX*8), BX
	MOVQ 8(R9)(AX*8), DX
	MOVQ 16(R9)(AX*8), R13
	MOVQ 24(R9)(AX*8), R12
	VMOVSS (R10)(BX*4), X2       // ri[idx[t]], four lanes
	VINSERTPS $0x10, (R10)(DX*4), X2, X2
	VINSERTPS $0x20, (R10)(R13*4), X2, X2
	VINSERTPS $0x30, (R10)(R12*4), X2, X2
	VMOVSS (R11)(BX*4), X3       // rj[idx[t]]
	VINSERTPS $0x10, (R11)(DX*4), X3, X3
	VINSERTPS $0x20, (R11)(R13*4), X3, X3
	VINSERTPS $0x30, (R11)(R12*4), X3, X3
	VCVTPS2PD X2, Y2
	VCVTPS2PD X3, Y3
	VMULPD Y14, Y2, Y2           // ri·dI
	VMULPD Y13, Y3, Y3           // rj·dJ
	VADDPD Y3, Y2, Y2
	VMULPD (R8)(AX*8), Y2, Y2    // fs[t]·(…)
	VADDPD (DI)(AX*8), Y2, Y2    // g[t] + …
	VMOVUPD Y2, (DI)(AX*8)
	VMULPD (SI)(AX*8), Y2, Y2    // v = upSign[t]·g[t]
	VCMPPD $0x1d, Y12, Y2, Y4    // v ≥ lane's largest, ordered (NaN never)
	VBLENDVPD Y4, Y2, Y12, Y12
	VBLENDVPD Y4, Y10, Y11, Y11
	VPADDQ Y9, Y10, Y10
	ADDQ $4, AX
	JMP  gradloop

graddone:
	MOVQ l+160(FP), R12
	VMOVUPD Y12, 0(R12)
	VMOVDQU Y11, 32(R12)
	VZEROUPPER
	MOVQ CX, ret+168(FP)
	RET
