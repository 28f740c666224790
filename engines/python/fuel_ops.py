"""Writes Python/swfuel_ops.h into a patched CPython tree: the fuel weight of each bytecode instruction, which
patches/fuel-eval-loop.patch charges at every INSTRUCTION_STATS (engines/python/README.md "Fuel"; measured costs
there). Run by scripts/engines/python.sh after the patches: usage: fuel_ops.py CPYTHON_TREE"""
import pathlib, re, sys

OP_WEIGHTS = [  # first matching prefix wins
    ("CALL_PY", 12), ("CALL_BOUND_METHOD", 12), ("CALL_ALLOC_AND_ENTER_INIT", 16), ("CALL_LIST_APPEND", 3),
    ("CALL_LEN", 3), ("CALL_ISINSTANCE", 3), ("CALL_TYPE_1", 3), ("CALL", 8), ("INSTRUMENTED_CALL", 8),
    ("RETURN_GENERATOR", 8), ("MAKE_FUNCTION", 6), ("LOAD_BUILD_CLASS", 6), ("IMPORT_", 8),
    ("BUILD_", 4), ("FORMAT_", 6), ("CONVERT_VALUE", 6), ("LIST_", 2), ("SET_UPDATE", 4), ("SET_ADD", 3),
    ("DICT_", 4), ("MAP_ADD", 3), ("UNPACK_EX", 4), ("UNPACK_", 2),
    ("LOAD_NAME", 3), ("STORE_NAME", 3), ("DELETE_NAME", 3), ("LOAD_GLOBAL", 2), ("STORE_GLOBAL", 3),
    ("LOAD_ATTR_INSTANCE_VALUE", 2), ("LOAD_ATTR_SLOT", 2), ("LOAD_ATTR_MODULE", 2), ("LOAD_ATTR_METHOD", 2),
    ("LOAD_ATTR", 4), ("STORE_ATTR_INSTANCE_VALUE", 2), ("STORE_ATTR", 4), ("LOAD_SUPER_ATTR", 6),
    ("DELETE_", 3), ("BINARY_SUBSCR_GETITEM", 12), ("BINARY_SUBSCR", 2), ("STORE_SUBSCR", 3), ("BINARY_SLICE", 4),
    ("STORE_SLICE", 4), ("BINARY_OP_ADD_INT", 2), ("BINARY_OP_SUBTRACT_INT", 2), ("BINARY_OP_MULTIPLY_INT", 2),
    ("BINARY_OP_INPLACE_ADD_UNICODE", 3), ("BINARY_OP", 3), ("COMPARE_OP_INT", 1), ("COMPARE_OP_FLOAT", 1),
    ("COMPARE_OP", 2), ("CONTAINS_OP", 3), ("FOR_ITER", 2), ("GET_ITER", 3), ("SEND", 3), ("YIELD_VALUE", 3),
    ("RETURN_", 2), ("RAISE_VARARGS", 8), ("RERAISE", 4), ("PUSH_EXC_INFO", 2), ("CHECK_EXC_MATCH", 2),
    ("BEFORE_", 6), ("WITH_EXCEPT_START", 6), ("MATCH_", 4), ("GET_", 4), ("END_ASYNC_FOR", 4),
]
def op_weight(name):
    for prefix, weight in OP_WEIGHTS:
        if name.startswith(prefix):
            return weight
    return 1

root = pathlib.Path(sys.argv[1])
ops = sorted(set(re.findall(r"INSTRUCTION_STATS\(([A-Z0-9_]+)\)", (root / "Python/generated_cases.c.h").read_text())))
(root / "Python/swfuel_ops.h").write_text("/* Fuel weight of each bytecode instruction (engines/python/fuel_ops.py). */\n" +
    "".join(f"#define SW_W_{op} {op_weight(op)}\n" for op in ops))
