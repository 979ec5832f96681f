"""Which kind of question is it: about passages, about one document, or about the library?

Most questions ask for a fact that a passage states ("How long is the incubation period?") and
go to the passage search and the answer. Two other kinds are answered without it:
- a *document* question asks for one document as a whole: "What is this report about?",
  "Summarise chapter 3", "Show me the table of contents";
- a *library* question asks about the documents themselves: "Which files mention the
  warranty?", "How many invoices are from 2024?", "List my PDFs".

The rules are plain patterns the user can see (the answer names the kind, and `ask --kind`
overrides it). They lean to the passage kind: a passage question sent elsewhere gets a list of
documents or an outline instead of its fact, a worse failure than the reverse, where a
document or library question still gets passages. `python -m bench.question_kinds` measures
them on questions of each kind (bench/questions/kinds.jsonl and the corpus's passage questions).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PASSAGE = "passage"
DOCUMENT = "document"
LIBRARY = "library"
KINDS = (PASSAGE, DOCUMENT, LIBRARY)

# Words that name a document as a whole. "file" and "document" also name things inside one
# ("which file holds the network settings?"), so the library rules ask for a verb about
# documents as well.
_DOC_NOUNS = (
    r"documents?|docs?|files?|pdfs?|papers?|reports?|articles?|manuals?|handbooks?|guides?|"
    r"books?|contracts?|leases?|agreements?|theses|thesis|essays?|memos?|letters?|filings?|"
    r"10-?[kq]s?|minutes|proposals?|invoices?|receipts?|statements?|"
    r"presentations?|spreadsheets?|slides|word files|word documents?|transcripts?"
)
# A file named in the question: "report.pdf", "meeting-notes.docx".
_FILE_NAME = r"[\w.-]+\.(?:pdf|docx?|odt|rtf|txt|md|html?|epub|pptx?|xlsx?|csv)\b"
# The whole of a document or one of its parts.
_PART = (
    r"(?:chapter|section|part|appendix|page|pages)\s*[\w.-]*(?:\s*(?:to|-|–)\s*\d+)?|"
    r"the (?:introduction|conclusion|discussion|methods?(?: section)?|results?(?: section)?|"
    r"appendix|preface|abstract|first|second|third|last) ?(?:chapter|section|part)?|"
    r"(?:the )?(?:first|second|third|fourth|fifth|last|next) (?:chapter|section|part)|"
    r"each (?:chapter|section)|every (?:chapter|section)"
)
# "this PDF", "the annual report", "report.pdf", "chapter 3"; or "this" / "it" alone at the end.
_DOC_REF = (
    rf"(?:{_FILE_NAME}|(?:this|that|the|my) (?:[\w'-]+ ){{0,3}}(?:{_DOC_NOUNS})\b|{_PART}|"
    rf"(?:this|that|it)(?=[\s,]*(?:please|for me|in [\w ]+)?[\s?.!]*$))"
)
_SUMMARY_VERBS = (
    r"summari[sz]e|sum up|recap|outline|condense|skim|break (?:down|\w+ down)|"
    r"walk me through|give me the (?:short version|gist|highlights)|tl;?dr|précis|precis"
)

# A question this short that only names a summary ("Executive summary please.", "tldr") asks
# for one of the document in scope; a longer one names what it wants summarised.
SHORT_QUESTION_WORDS = 6

_DOCUMENT_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    # "Summarise this PDF", "Outline chapter 7", "Walk me through the proposal". A verb on
    # something that is not a document ("summarise the risk factors") is a passage question:
    # the object must be a document, one of its parts, or "it" / "this" at the end.
    (
        "asks for a summary or an outline",
        re.compile(
            rf"^(?:please |can you |could you |now )?(?:{_SUMMARY_VERBS})\b"
            rf"(?:\s+(?:me|down|up)\b)?(?:\s+(?:{_DOC_REF})|[\s?.!]*(?:please|for me)?[\s?.!]*$)",
            re.I,
        ),
    ),
    (
        "asks for a summary",
        re.compile(
            rf"\b(?:summary|overview|outline|recap|gist|précis|tl;?dr|short version)"
            rf"\s+of\s+(?:{_DOC_REF})",
            re.I,
        ),
    ),
    (
        "asks what a document is about",
        re.compile(
            rf"\b(?:what(?:'s| is| was)|tell me(?: what)?|explain(?: what)?|describe(?: what)?)"
            rf"\s+(?:{_DOC_REF})\s+(?:is |are )?(?:all )?about\b|"
            rf"\bwhat(?:'s| is) (?:this|it) (?:all )?about\b|"
            rf"\b(?:tell me about|describe|explain|break down) (?:{_DOC_REF})|"
            rf"\bexplain (?:this|that|it) in (?:simple|plain)\b|"
            rf"\bwhat(?:'s| is) in (?:{_DOC_REF})[\s?.!]*$|"
            rf"^what is this about in plain english\b",
            re.I,
        ),
    ),
    (
        "asks for a document's main points",
        re.compile(
            r"\b(?:main|key|central|big|overall)\s+(?:points?|ideas?|themes?|takeaways?|"
            r"findings?|conclusions?|arguments?|messages?|picture|thrust)\b"
            rf"\s+(?:of|from|in)\s+(?:{_DOC_REF})|"
            rf"\b(?:highlights|conclusions|findings|thrust|purpose|gist|message|"
            rf"main (?:idea|argument)) of (?:{_DOC_REF})|"
            rf"\bwhat did (?:{_DOC_REF}) (?:find|conclude|say)[?.!]*$|"
            rf"\bwhat(?:'s| is) (?:{_DOC_REF}) for\b|"
            rf"\bwho is (?:{_DOC_REF}) for\b",
            re.I,
        ),
    ),
    (
        "asks for the contents or the structure",
        re.compile(
            rf"\btable of contents\b|\b(?:chapter|section) (?:headings|titles)\b|"
            rf"\bwhat headings\b|"
            rf"\b(?:list|what are|show me) (?:all )?(?:the )?(?:chapters|sections|parts) of\b|"
            rf"\b(?:structure|organi[sz]ation) of (?:{_DOC_REF})|"
            rf"\bhow is (?:{_DOC_REF}) (?:organi[sz]ed|structured|laid out)\b|"
            rf"\bwhat does each (?:chapter|section)",
            re.I,
        ),
    ),
    (
        "asks what a part or a document covers",
        re.compile(
            rf"\bwhat (?:does|do) (?:{_DOC_REF}|the (?:[\w'-]+ ){{1,2}}(?:section|chapter)) "
            rf"(?:cover|contain|talk about|say)[?.!]*$|"
            rf"\bwhat(?:'s| is) (?:covered |included )?(?:in|on) (?:{_DOC_REF})[?.!]*$|"
            rf"\bwhat topics does (?:{_DOC_REF}) cover\b|"
            rf"\bdescribe what (?:{_DOC_REF}) covers\b",
            re.I,
        ),
    ),
    (
        "asks to read a document for the user",
        re.compile(
            rf"\b(?:don't|do not|haven't|have not|didn't) (?:have time to )?read (?:[\w ]+ )?"
            rf"(?:{_DOC_REF})",
            re.I,
        ),
    ),
)
# Short requests for a summary of whatever is in scope: "Executive summary please", "TL;DR?".
_SHORT_SUMMARY = re.compile(
    r"\b(?:summary|summari[sz]e|overview|outline|recap|gist|précis|tl;?dr|short version|"
    r"skim|sum (?:it )?up|key points|main points|highlights)\b",
    re.I,
)

# "Overview of RDBMSs" is a section's title: a summary of something named, not of the document.
_NAMES_ITS_OBJECT = re.compile(r"\b(?:of|on|about|for) (?!it\b|this\b|me\b)\w", re.I)

# "What is the summary judgment standard?" asks a question; "Executive summary please" asks for one.
_WH_START = re.compile(r"^(?:what|how|why|when|where|who|which|is|are|does|do|did|can)\b", re.I)

_LIBRARY_VERBS = (
    r"mention|mentions|mentioned|discuss|discusses|talk|talks|cover|covers|"
    r"contain|contains|has|have|cite|cites|relate|relates|refer|refers|belong|belongs|"
    r"failed|did i|do i have|have i|should i"
)
_LIBRARY_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "asks which documents",
        re.compile(
            rf"\bwhich(?: of my| of the)? (?:[\w-]+ ){{0,2}}(?:{_DOC_NOUNS})\b"
            rf"(?! do i need)(?! does)(?! types)"
            # "Which book is that?" asks what a passage named, not for a list of books.
            rf"(?!\s+(?:is|are|was|were)\s+(?:that|this|it|these|those)\b)"
            rf"\s+(?:{_LIBRARY_VERBS}|are|were|is|was)\b|"
            rf"\bwhat(?: of my| of the)? (?!the |this |that )(?:[\w-]+ ){{0,2}}(?:{_DOC_NOUNS})\b"
            rf"(?! do i need)(?! does)(?! types)\s+(?:{_LIBRARY_VERBS})\b|"
            rf"\bin which (?:of my )?(?:[\w-]+ )?(?:{_DOC_NOUNS})\b|"
            rf"\b(?:which|what) (?:is|are) (?:the )?(?:newest|latest|oldest|longest|shortest|"
            rf"biggest|largest|smallest|most recent) (?:{_DOC_NOUNS})\b|"
            rf"\bwhat (?:{_DOC_NOUNS}) (?:are|is) (?:relevant|related|about|in my)\b|"
            rf"\b(?:what|which) (?:{_DOC_NOUNS}) (?:are|is) (?:in|from) (?:the|my) [\w -]*"
            rf"(?:folder|collection|library)\b",
            re.I,
        ),
    ),
    (
        "counts documents",
        re.compile(
            rf"\bhow many (?:of my )?(?:[\w-]+ )?(?:{_DOC_NOUNS})\b(?! (?:do|does) i need)"
            rf"(?! can)(?! (?:do|does|did) (?:you|we|they|it))"
            rf"(?! (?:were|was) (?:\w+ )?(?:filed|sent|issued|signed|submitted|received))|"
            rf"\bhow many pages (?:are|do i have) in my\b|"
            rf"^(?:count|number of|total number of)\b",
            re.I,
        ),
    ),
    (
        "lists documents",
        re.compile(
            rf"^(?:please )?(?:list|show(?: me)?|find|give me(?: a list of| all)?|sort|search|"
            rf"count)\s+(?:all |every |each )?(?:of )?(?:the |my )?(?:[\w-]+ )?"
            rf"(?:{_DOC_NOUNS})\b(?!\s+(?:of|in) (?:this|the|that|it)\b)|"
            rf"^(?:search|look through) my (?:{_DOC_NOUNS}|library)\b",
            re.I,
        ),
    ),
    (
        "asks whether any document has it",
        re.compile(
            rf"\b(?:do i have|have i got|are there|is there|do any|does any|does one of)"
            rf"\s+(?:any |anything |a |an |some )?(?:of my )?(?:[\w-]+ )?"
            rf"(?:{_DOC_NOUNS}|anything)\b(?! (?:do|does) i need)|"
            rf"\b(?:anywhere )?in (?:any of )?my (?:{_DOC_NOUNS}|library)\b|"
            rf"\bwhere (?:did i (?:save|put|keep|store)|is my|are my)\b|"
            rf"\bwhere (?:is|are) (?:the |my )?[\w -]+ mentioned\b|"
            rf"\bwhat is the (?:biggest|largest|longest|newest|oldest) (?:{_DOC_NOUNS}) i have\b",
            re.I,
        ),
    ),
    (
        "asks about the library or a collection",
        re.compile(
            r"\bmy library\b|\bthe [\w-]+ collection\b|\bcollection named\b|"
            rf"^(?:what are |show me |list )?(?:my |the )?(?:most )?(?:recent|newest|latest) "
            rf"(?:{_DOC_NOUNS})[?.!]*$|\bmy (?:most )?(?:recent|newest|latest) (?:{_DOC_NOUNS})\b|"
            rf"\bwhat have i added\b|"
            rf"\b(?:authors?|titles?) of (?:all )?(?:my |the )?(?:{_DOC_NOUNS})\b|"
            rf"\b(?:added|modified|indexed) (?:today|recently|last \w+|this \w+)\b|"
            rf"^(?:show|list)(?: me)? my (?:{_DOC_NOUNS})[?.!]*$",
            re.I,
        ),
    ),
)


@dataclass(frozen=True)
class Route:
    """The kind of a question and the rule that decided it ("" for a passage question)."""

    kind: str
    rule: str = ""


def route(question: str) -> Route:
    """The kind of question, by the first rule that matches; a passage question otherwise.

    Library rules are tried first: "which documents summarise X" lists documents."""
    text = " ".join(question.split())
    for rule, pattern in _LIBRARY_RULES:
        if pattern.search(text):
            return Route(LIBRARY, rule)
    for rule, pattern in _DOCUMENT_RULES:
        if pattern.search(text):
            return Route(DOCUMENT, rule)
    short = len(text.split()) <= SHORT_QUESTION_WORDS
    request = not _WH_START.match(text)
    if short and request and _SHORT_SUMMARY.search(text) and not _NAMES_ITS_OBJECT.search(text):
        return Route(DOCUMENT, "asks for a summary")
    return Route(PASSAGE)
