"""Read the chosen letter from a free-form multiple-choice answer, or None: it never guesses.

Other harnesses anchor a letter regex at the start ("The correct answer is (B)" -> "T") or fall
back to a random letter. Here every rule reads an explicit signal, strongest first:

1. `<answer>X</answer>` and `\\boxed{X}` tags (the last one);
2. answer statements ("Answer: b", "the answer is (B)", "I choose B", "B is correct"), labelled
   verdicts ("Selected: E", "Conclusion: D", "Final choice - B"), a negated option followed by
   the chosen one ("not A. It is C"), and statements in Chinese (答案是 B, 答案：B, 选 B); the
   last one wins, so a response that corrects itself is read as corrected;
3. the whole reply is a letter ("B", "(b)", "**B**", "[B]"), or it opens with a marked letter
   followed by an explanation ("B. The cup moved"), or its last line is a bare letter, or a
   bare letter closes it after a sentence ("... in both images. A");
4. exactly one letter named as an option ("option B");
5. exactly one option's own text.

An echoed option list, several letters offered together ("A or B"), a letter outside
`letters`, an unfinished `<think>` block or a refusal without an answer statement give None. "A" used as an article and
references such as "Image A" are never read as answers. Text after the last `</think>` is read.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

__all__ = ["extract_choice"]

# Words after which "A" (or "I") still reads as a letter ("A because ..."), not an article.
_CONNECTIVES = r"(?:because|since|as|is|was|would|should|seems|appears|fits|matches)"
_MARKDOWN = re.compile(r"[*_`]+")
_IMAGE_REF = re.compile(
    r"\b(?:images?|pictures?|photos?|figures?|panels?|frames?|img|pic|subfigures?)\s+[A-Za-z](?![\w'’])",
    re.IGNORECASE,
)
_TAGS = re.compile(r"<answer>(.*?)</answer>|\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}", re.IGNORECASE | re.DOTALL)
_LATEX_WRAP = re.compile(r"\\[a-z]+\{([^{}]*)\}")
_NEGATION = re.compile(r"\b(?:not|isn t|doesn t|don t|cannot|can t|never|unsure|unclear|neither|nor)\b")
_REFUSAL = re.compile(
    r"\s*(?:i'?m sorry|i am sorry|sorry|unfortunately|as an ai|"
    r"i (?:cannot|can't|can not|am unable|'m unable|am not able))",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[^\w\s]+")
_SEPARATORS = ":=-–—"
_CLOSING_SPAN = 16  # characters at the end of a reply searched for a closing letter ". (B)."
_SPACES = re.compile(r"\s+")


class _Patterns:
    """Regexes for one set of valid letters, compiled once."""

    def __init__(self, letters: str):
        self.valid = {c.upper(): c for c in letters}
        x = r"[A-Za-z]"
        # A letter token: bracketed, or a lone character. "A"/"a" and "I"/"i" double as words, so
        # unbracketed they count only before punctuation, the end, or a connective ("A because").
        self.token = re.compile(
            rf"[(\[{{<]\s*(?P<b>{x})\s*[)\]}}>]"
            rf"|(?P<l>[B-HJ-Zb-hj-z])(?![\w'’])"
            rf"|(?P<a>[AaIi])(?![\w'’])(?=\s*(?:$|[^\w\s]|{_CONNECTIVES}\b))"
        )
        # Two or more letters offered together: "A or B", "B/C", "A, B and D".
        self.several = re.compile(
            rf"[(\[]?\s*{x}\s*[)\]]?\s*(?:,|/|&|\bor\b|\band\b)\s*[(\[]?\s*{x}\s*[)\]]?(?!\w)"
        )
        lead = r"(?:option|choice|letter)?\s*"
        statements = [
            # "The (correct|final|best) answer is (B)", "Answer: b", "answer would be option C"
            r"\banswers?\b(?:\s+(?:is|would\s+be|should\s+be|will\s+be|must\s+be|seems\s+to\s+be))?"
            rf"\s*(?:[:=\-–—]|\bis\b)?\s*{lead}",
            rf"\b(?:correct|right|best|final)\s+(?:option|choice|letter|response)\s*(?:is|would\s+be|[:\-–—])?\s*{lead}",
            rf"\bi(?:\s+would|\s+will|'d|'ll|’d|’ll)?\s+(?:choose|select|pick|go\s+with|opt\s+for)\s*{lead}",
        ]
        self.statement = re.compile("|".join(statements), re.IGNORECASE)
        # labelled verdicts: "Selected: E", "Conclusion: D", "My choice - B" (searched only when a
        # separator occurs: most replies have none)
        self.verdict = re.compile(
            rf"\b(?:selected|selection|conclusion|verdict|(?:my|final)\s+(?:pick|selection|verdict|choice))"
            rf"\s*[:=\-–—]\s*{lead}",
            re.IGNORECASE,
        )
        # "B is correct", "(B) is the right answer", "Therefore, B."
        self.postfix = re.compile(
            rf"(?:^|(?<=[\s(\[]))(?:option\s+|choice\s+)?[(\[]?(?P<x>{x})[)\]]?\s+(?:is|would\s+be|seems)\s+"
            r"(?:the\s+)?(?:correct|right|best|most\s+accurate|answer)\b",
            re.IGNORECASE,
        )
        self.closing = re.compile(
            rf"\b(?:therefore|thus|hence|so)\s*[,:]?\s*(?:it\s+is\s+|it's\s+)?{lead}[(\[]?(?P<x>{x})[)\]]?\s*(?:[.!]|$)",
            re.IGNORECASE,
        )
        # "not A. It is C", "It's not A, it's C", "Not B; D."
        self.negated = re.compile(
            rf"\b(?:not|isn't|isn’t)\s+(?:option\s+|choice\s+)?[(\[]?(?P<n>{x})[)\]]?\s*[.,;:!]\s*"
            r"(?:(?:but|rather|instead)\s*,?\s*){0,2}(?:it\s+is\s+|it's\s+|it’s\s+|it\s+must\s+be\s+)?"
            rf"(?:option\s+|choice\s+)?[(\[]?(?P<x>{x})[)\]]?\s*(?:[.!]|$)",
            re.IGNORECASE,
        )
        # 答案是 B, 答案：B, 答案为（b）, 我选 A, 选择 C; never after 不 ("不选A": not A). (?P<more>) catches
        # several letters offered together ("答案是A或B").
        self.chinese = re.compile(
            r"(?:答案\s*(?:(?:应该是|应为|是|为)\s*[:：]?|[:：])|(?<!不)选(?:择)?(?:的是)?\s*[:：]?)\s*(?:选项)?\s*"
            rf"[(（\[【]?\s*(?P<x>{x})\s*[)）\]】]?(?![A-Za-z])"
            r"(?P<more>\s*(?:和|或者?|与|、|及|/|,|，)\s*[(（]?\s*[A-Za-z](?![A-Za-z]))?"
        )
        # a bare letter closing a line after a sentence: "... in both images. A"
        self.closing_letter = re.compile(rf"[.!。]\s+[(\[]?(?P<x>{x})[)\]]?\s*[.!。]?\s*$")
        self.option_ref = re.compile(rf"\b(?:option|choice)\s*[(\[]?\s*(?P<x>{x})(?![\w'’])", re.IGNORECASE)
        self.bare = re.compile(rf"^[\W_]*(?P<x>{x})[\W_]*$")
        # A marked letter opening the reply: "B.", "B)", "(B)", "[B]", "B:", "B -", "B\n", or an
        # uppercase letter that is not a word followed by words ("B because").
        self.leading = re.compile(
            rf"\s*(?:[(\[]\s*(?P<b>{x})\s*[)\]]|(?P<m>{x})\s*(?:[.):]|\s[-–—]\s|\n)"
            rf"|(?P<w>[B-HJ-Z])\s+(?=\w))"
        )
        self.list_marker = re.compile(rf"(?m)^\s*[(\[]?(?P<x>{x})\s*[.):\]]\s*\S")


@lru_cache(maxsize=16)
def _patterns(letters: str) -> _Patterns:
    return _Patterns(letters)


def extract_choice(
    response: str | None, options: Sequence[str] | None = None, letters: str = "ABCDE", *, strict: bool = False
) -> str | None:
    """The letter (spelled as in `letters`) a careful reader takes as the answer, else None.

    `strict=True` is the DiCoBench paper's protocol: the reply must be a single letter with at
    most punctuation and whitespace around it.
    """
    if not response:
        return None
    p = _patterns(letters)
    if strict:
        m = p.bare.match(response)
        return p.valid.get(m.group("x").upper()) if m else None
    text = _final_text(response)
    if text is None:
        return None
    m = p.bare.match(text)  # fast path: most replies are a bare letter
    if m:
        return p.valid.get(m.group("x").upper())
    text = _IMAGE_REF.sub(" ", _MARKDOWN.sub("", text)).strip()
    for read in (_read_tags, _read_statements):
        found, letter = read(text, p, options)
        if found:
            return letter
    if _REFUSAL.match(text):
        return None  # weaker signals in a refusal are not an answer
    for read in (_read_shape, _read_option_refs):
        found, letter = read(text, p, options)
        if found:
            return letter
    return _read_option_text(text, options, p)


def _final_text(response: str) -> str | None:
    """The part after the reasoning block; None when the reasoning never finished."""
    end = response.rfind("</think>")
    if end >= 0:
        return response[end + len("</think>"):].strip()
    if "<think>" in response:
        return None
    return response.strip()


def _letter_at(text: str, pos: int, p: _Patterns) -> tuple[bool, str | None]:
    """Read one letter token at `pos`: (found, letter or None when invalid or several offered)."""
    m = p.token.match(text, pos)
    if not m:
        return False, None
    if p.several.match(text, pos):
        return True, None
    return True, p.valid.get((m.group("b") or m.group("l") or m.group("a")).upper())


def _read_tags(text, p, options):
    tags = _TAGS.findall(text)
    if not tags:
        return False, None
    inner = _LATEX_WRAP.sub(r"\1", tags[-1][0] or tags[-1][1]).strip()
    m = p.bare.match(inner)
    if m:
        return True, p.valid.get(m.group("x").upper())
    found, letter = _read_shape(inner, p, options)
    if found:
        return True, letter
    return True, _read_option_text(inner, options, p)


def _read_statements(text, p, options):
    """The last answer statement that names a letter (so self-corrections are honoured)."""
    candidates = []
    labelled = p.verdict.finditer(text) if any(c in text for c in _SEPARATORS) else ()
    for m in (*p.statement.finditer(text), *labelled):
        if re.match(r"\s*not\b", text[m.end():], re.IGNORECASE):
            continue
        found, letter = _letter_at(text, m.end(), p)
        if found:
            candidates.append((m.end(), letter))
    for regex in (p.postfix, p.closing):
        for m in regex.finditer(text):
            if p.several.match(text, m.start("x")):
                candidates.append((m.start("x"), None))
            else:
                candidates.append((m.start("x"), p.valid.get(m.group("x").upper())))
    for m in p.negated.finditer(text) if _may_negate(text) else ():
        if m.group("n").upper() != m.group("x").upper():
            candidates.append((m.start("x"), p.valid.get(m.group("x").upper())))
    for m in p.chinese.finditer(text) if ("答" in text or "选" in text) else ():
        candidates.append((m.start("x"), None if m.group("more") else p.valid.get(m.group("x").upper())))
    if not candidates:
        return False, None
    return True, max(candidates, key=lambda c: c[0])[1]


def _may_negate(text: str) -> bool:
    """A cheap test that spares most replies the negated-option search."""
    low = text.lower()
    return "not" in low or "n't" in low or "n’t" in low


def _read_shape(text, p, options):
    """A reply that is one marked letter, opens with one, or ends on a bare-letter line."""
    markers = {m.group("x").upper() for m in p.list_marker.finditer(text)}
    if len(markers) >= 2:
        return True, None  # an echoed option list, not an answer
    if p.several.match(text):
        return True, None
    first = last = None
    m = p.leading.match(text)
    if m:
        first = (m.group("b") or m.group("m") or m.group("w")).upper()
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) > 1:
        tail = p.bare.match(lines[-1])
        if tail:
            last = tail.group("x").upper()
    if last is None and lines:
        end = lines[-1][-_CLOSING_SPAN:]  # only a reply's last characters can hold it: keeps the search short
        tail = p.closing_letter.search(end)
        if tail and tail.group("x").upper() in p.valid and \
                re.search(r"\w", lines[-1][:len(lines[-1]) - len(end) + tail.start()]):
            last = tail.group("x").upper()
            named = {m.group("x").upper() for m in p.option_ref.finditer(text)}
            if named - {last}:
                return True, None  # "Option B looks right. A": two answers
    if first and last and first != last:
        return True, None
    letter = first or last
    if letter is None:
        return False, None
    return True, p.valid.get(letter)


def _read_option_refs(text, p, options):
    named = {m.group("x").upper() for m in p.option_ref.finditer(text)}
    if not named:
        return False, None
    if len(named) > 1:
        return True, None
    return True, p.valid.get(named.pop())


def _normalise(text: str) -> str:
    return _SPACES.sub(" ", _WORDS.sub(" ", text.lower())).strip()


def _read_option_text(text, options, p) -> str | None:
    """The one option whose text the reply contains, unless the rest of the reply negates it
    (the longest wins when one option's text contains another's)."""
    if not options:
        return None
    reply = f" {_normalise(text)} "
    hits = []
    for letter, option in zip(p.valid.values(), options):
        norm = _normalise(option)
        if norm and f" {norm} " in reply:
            hits.append((letter, norm))
    hits = [h for h in hits if not any(h[1] != o[1] and h[1] in o[1] for o in hits)]
    if len(hits) != 1:
        return None
    letter, norm = hits[0]
    return None if _NEGATION.search(reply.replace(f" {norm} ", " ")) else letter
