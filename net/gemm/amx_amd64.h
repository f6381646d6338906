// The AMX tile instructions, which the Go assembler does not know, as
// bytes (VEX-encoded; tmm registers by number), shared by amx_amd64.s
// and bf16_amd64.s. Operands: rows of A in tmm3 (TILELOAD_A from
// (SI)(CX*1)), B tiles from (DI)(DX*1), sums stored to or loaded from
// (BX)(AX*1).
#define LDTILECFG_AX BYTE $0xC4; BYTE $0xE2; BYTE $0x78; BYTE $0x49; BYTE $0x00
#define TILERELEASE BYTE $0xC4; BYTE $0xE2; BYTE $0x78; BYTE $0x49; BYTE $0xC0
#define TILEZERO(t) BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $(0xC0 | ((t)<<3))
#define TILELOAD_A BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x1C; BYTE $0x0E
#define TILELOAD_B(t) BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $(0x04 | ((t)<<3)); BYTE $0x17
#define TILESTORE(t) BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $(0x04 | ((t)<<3)); BYTE $0x03
#define TILELOAD_C(t) BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $(0x04 | ((t)<<3)); BYTE $0x03
