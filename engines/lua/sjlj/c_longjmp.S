# The exception tag that __wasm_longjmp throws and the lowered setjmp callers catch (sjlj_rt.c): one i32, a pointer.
.globl __c_longjmp
.tagtype __c_longjmp i32
__c_longjmp:
