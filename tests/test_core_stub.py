"""python/zvmsim/_core.pyi against the real native module zvmsim._core.

Both directions are checked: every public name of the module (functions, classes, their public
methods and properties, the exception's attributes, ``__version__``) is declared in the stub, and
every name the stub declares exists in the module. For functions and methods the parameter names
(and which parameters have a default) are compared with ``inspect.signature``, which reads the
``__text_signature__`` PyO3 generates.
"""

from __future__ import annotations

import ast
import builtins
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

from zvmsim import _core

STUB = Path(__file__).resolve().parents[1] / "python" / "zvmsim" / "_core.pyi"

@dataclass
class StubFunction:
    name: str
    params: List[Tuple[str, bool]]  # (name, has default), in order


@dataclass
class StubClass:
    name: str
    bases: List[str]
    methods: Dict[str, StubFunction] = field(default_factory=dict)
    attributes: List[str] = field(default_factory=list)


@dataclass
class Stub:
    functions: Dict[str, StubFunction] = field(default_factory=dict)
    classes: Dict[str, StubClass] = field(default_factory=dict)
    variables: List[str] = field(default_factory=list)

    def names(self) -> List[str]:
        return [*self.functions, *self.classes, *self.variables]


def _stub_function(node: ast.FunctionDef) -> StubFunction:
    a = node.args
    positional = [*a.posonlyargs, *a.args]
    n_plain = len(positional) - len(a.defaults)
    params = [(p.arg, i >= n_plain) for i, p in enumerate(positional)]
    if a.vararg is not None:
        params.append(("*" + a.vararg.arg, False))
    params += [(p.arg, d is not None) for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg is not None:
        params.append(("**" + a.kwarg.arg, False))
    return StubFunction(node.name, params)


def _is_property(node: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list)


def _target_name(node: ast.AnnAssign) -> Optional[str]:
    return node.target.id if isinstance(node.target, ast.Name) else None


def parse_stub(text: str) -> Stub:
    stub = Stub()
    for node in ast.parse(text, filename=str(STUB)).body:
        if isinstance(node, ast.FunctionDef):
            stub.functions[node.name] = _stub_function(node)
        elif isinstance(node, ast.ClassDef):
            cls = StubClass(node.name, [ast.unparse(b) for b in node.bases])
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    if _is_property(item):
                        cls.attributes.append(item.name)
                    else:
                        cls.methods[item.name] = _stub_function(item)
                elif isinstance(item, ast.AnnAssign) and _target_name(item):
                    cls.attributes.append(_target_name(item))
            stub.classes[node.name] = cls
        elif isinstance(node, ast.AnnAssign) and _target_name(node):
            stub.variables.append(_target_name(node))
    return stub


STUB_DECL = parse_stub(STUB.read_text(encoding="utf-8"))


def module_public_names() -> List[str]:
    names = [n for n in dir(_core) if not n.startswith("_")]
    return sorted({*names, "__version__"})


def scenario_error_instance() -> BaseException:
    with pytest.raises(_core.ScenarioError) as info:
        _core.check("this is [not toml", "bad.toml")
    return info.value


def class_public_members(cls: type) -> Tuple[List[str], List[str]]:
    """(methods, attributes) defined by the class itself (not inherited), public names only."""
    methods, attributes = [], []
    for name, obj in vars(cls).items():
        if name.startswith("_"):
            continue
        if inspect.isdatadescriptor(obj) or not callable(obj):
            attributes.append(name)
        else:
            methods.append(name)
    if issubclass(cls, BaseException):
        # The glue sets the exception's fields on each instance.
        attributes += [n for n in vars(scenario_error_instance()) if not n.startswith("_")]
    return sorted(methods), sorted(attributes)


def runtime_params(obj) -> Optional[List[Tuple[str, bool]]]:
    try:
        sig = inspect.signature(obj)
    except (ValueError, TypeError):
        return None
    out = []
    for p in sig.parameters.values():
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        out.append((prefix + p.name, p.default is not p.empty))
    return out


# ---------------------------------------------------------------------------------------------
# Names, both directions.
# ---------------------------------------------------------------------------------------------


def test_stub_parses_and_is_not_empty() -> None:
    assert STUB_DECL.functions and STUB_DECL.classes and "__version__" in STUB_DECL.variables


def test_every_module_name_is_in_the_stub() -> None:
    missing = [n for n in module_public_names() if n not in STUB_DECL.names()]
    assert not missing, f"public names of zvmsim._core missing from _core.pyi: {missing}"


def test_every_stub_name_is_in_the_module() -> None:
    extra = [n for n in STUB_DECL.names() if not hasattr(_core, n)]
    assert not extra, f"names declared in _core.pyi that zvmsim._core lacks: {extra}"


def test_kinds_match() -> None:
    for name in STUB_DECL.functions:
        obj = getattr(_core, name, None)
        assert callable(obj) and not isinstance(obj, type), f"{name}: stub says function"
    for name in STUB_DECL.classes:
        assert isinstance(getattr(_core, name, None), type), f"{name}: stub says class"
    for name in STUB_DECL.variables:
        obj = getattr(_core, name, None)
        assert obj is not None and not callable(obj), f"{name}: stub says variable"
    assert isinstance(_core.__version__, str)


@pytest.mark.parametrize("cls_name", sorted(STUB_DECL.classes))
def test_class_members_match(cls_name: str) -> None:
    cls = getattr(_core, cls_name, None)
    if not isinstance(cls, type):
        pytest.fail(f"{cls_name} is not a class of zvmsim._core")
    decl = STUB_DECL.classes[cls_name]
    methods, attributes = class_public_members(cls)
    stub_methods = sorted(m for m in decl.methods if not m.startswith("_"))
    assert methods == stub_methods, f"{cls_name}: methods (module vs stub)"
    assert attributes == sorted(decl.attributes), f"{cls_name}: attributes (module vs stub)"
    for base in decl.bases:
        base_obj = getattr(_core, base, None) or getattr(builtins, base, None)
        assert isinstance(base_obj, type) and issubclass(cls, base_obj), f"{cls_name}({base})"


# ---------------------------------------------------------------------------------------------
# Signatures.
# ---------------------------------------------------------------------------------------------


def _signature_cases() -> List[Tuple[str, object, StubFunction]]:
    cases = []
    for name, fn in STUB_DECL.functions.items():
        cases.append((name, lambda n=name: getattr(_core, n), fn))
    for cls_name, cls in STUB_DECL.classes.items():
        for name, fn in cls.methods.items():
            qual = f"{cls_name}.{name}"
            if name == "__init__":
                # PyO3 puts the #[new] signature on the class itself (without self).
                fn = StubFunction(qual, fn.params[1:])
                cases.append((qual, lambda c=cls_name: getattr(_core, c), fn))
            else:
                cases.append(
                    (qual, lambda c=cls_name, n=name: getattr(getattr(_core, c), n), fn)
                )
    return cases


@pytest.mark.parametrize(
    "qual,get,decl", _signature_cases(), ids=[c[0] for c in _signature_cases()]
)
def test_signature_matches(qual: str, get, decl: StubFunction) -> None:
    try:
        obj = get()
    except AttributeError:
        pytest.fail(f"{qual} is missing from zvmsim._core")
    params = runtime_params(obj)
    if params is None:
        pytest.skip(f"{qual}: no signature available at runtime")
    assert params == decl.params, f"{qual}: (name, has default) runtime vs stub"
