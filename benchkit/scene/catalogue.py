"""The catalogue of named real-world objects the scene engine draws.

Glyphs come from Font Awesome Free (icons CC BY 4.0, font SIL OFL 1.1), which ships inside
the `fontawesomefree` wheel, so building needs no download. Font Awesome also draws arrows,
logos and abstract symbols; only the curated objects below, each a thing a person can name
and point at on a table or floor, enter the catalogue.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

LICENCE = (
    "Object glyphs: Font Awesome Free 6 by Fonticons, Inc. (https://fontawesome.com), "
    "icons under CC BY 4.0, font under SIL OFL 1.1."
)

# icon id -> (object name, category). Categories are coarse groups, so "another category"
# means a clearly different kind of thing.
CURATED: dict[str, tuple[str, str]] = {
    # animals
    "cat": ("cat", "animal"), "dog": ("dog", "animal"), "horse": ("horse", "animal"),
    "cow": ("cow", "animal"), "hippo": ("hippo", "animal"), "frog": ("frog", "animal"),
    "fish-fins": ("fish", "animal"), "spider": ("spider", "animal"), "otter": ("otter", "animal"),
    "dove": ("dove", "animal"), "crow": ("crow", "animal"), "kiwi-bird": ("kiwi bird", "animal"),
    "worm": ("worm", "animal"), "mosquito": ("mosquito", "animal"), "locust": ("grasshopper", "animal"),
    "bug": ("beetle", "animal"), "shrimp": ("shrimp", "animal"), "dragon": ("toy dragon", "toy"),
    # vehicles
    "car": ("car", "vehicle"), "truck": ("truck", "vehicle"), "bus": ("bus", "vehicle"),
    "motorcycle": ("motorcycle", "vehicle"), "plane": ("airplane", "vehicle"),
    "ship": ("ship", "vehicle"), "sailboat": ("sailboat", "vehicle"),
    "helicopter": ("helicopter", "vehicle"), "rocket": ("rocket", "vehicle"),
    "tractor": ("tractor", "vehicle"), "train": ("train", "vehicle"), "taxi": ("taxi", "vehicle"),
    "bicycle": ("bicycle", "vehicle"), "truck-pickup": ("pickup truck", "vehicle"),
    "caravan": ("caravan", "vehicle"), "sleigh": ("sleigh", "vehicle"),
    "baby-carriage": ("stroller", "vehicle"), "shuttle-space": ("space shuttle", "vehicle"),
    # tools
    "hammer": ("hammer", "tool"), "screwdriver": ("screwdriver", "tool"),
    "wrench": ("wrench", "tool"), "trowel": ("trowel", "tool"),
    "paint-roller": ("paint roller", "tool"), "ruler": ("ruler", "tool"),
    "toolbox": ("toolbox", "tool"), "helmet-safety": ("hard hat", "tool"),
    "scissors": ("scissors", "tool"), "brush": ("paintbrush", "tool"),
    "magnet": ("magnet", "tool"), "compass-drafting": ("drafting compass", "tool"),
    "tape": ("tape roll", "tool"), "spray-can": ("spray can", "tool"),
    "oil-can": ("oil can", "tool"), "magnifying-glass": ("magnifying glass", "tool"),
    "broom": ("broom", "tool"), "bucket": ("bucket", "tool"),
    "fire-extinguisher": ("fire extinguisher", "tool"), "binoculars": ("binoculars", "tool"),
    "compass": ("compass", "tool"), "key": ("key", "tool"), "lock": ("padlock", "tool"),
    # kitchenware and drinks
    "mug-hot": ("mug", "kitchenware"), "mug-saucer": ("cup and saucer", "kitchenware"),
    "spoon": ("spoon", "kitchenware"), "utensils": ("fork and knife", "kitchenware"),
    "blender": ("blender", "kitchenware"), "jar": ("jar", "kitchenware"),
    "kitchen-set": ("pot and pan", "kitchenware"), "mortar-pestle": ("mortar and pestle", "kitchenware"),
    "bowl-rice": ("rice bowl", "kitchenware"), "wine-bottle": ("wine bottle", "drink"),
    "wine-glass": ("wine glass", "drink"), "martini-glass": ("cocktail glass", "drink"),
    "whiskey-glass": ("whiskey glass", "drink"), "beer-mug-empty": ("beer mug", "drink"),
    "glass-water": ("glass of water", "drink"), "bottle-water": ("water bottle", "drink"),
    "champagne-glasses": ("champagne glasses", "drink"), "bottle-droplet": ("oil bottle", "drink"),
    # food
    "apple-whole": ("apple", "food"), "carrot": ("carrot", "food"), "lemon": ("lemon", "food"),
    "pepper-hot": ("chili pepper", "food"), "egg": ("egg", "food"), "cheese": ("cheese", "food"),
    "pizza-slice": ("pizza slice", "food"), "burger": ("burger", "food"),
    "hotdog": ("hot dog", "food"), "ice-cream": ("ice cream", "food"), "cookie": ("cookie", "food"),
    "bread-slice": ("bread slice", "food"), "drumstick-bite": ("chicken drumstick", "food"),
    "bacon": ("bacon", "food"), "fish": ("whole fish", "food"), "bone": ("bone", "food"),
    "cake-candles": ("birthday cake", "food"), "candy-cane": ("candy cane", "food"),
    "stroopwafel": ("waffle", "food"),
    # electronics
    "mobile": ("phone", "electronics"), "tablet": ("tablet", "electronics"),
    "laptop": ("laptop", "electronics"), "tv": ("television", "electronics"),
    "radio": ("radio", "electronics"), "microphone": ("microphone", "electronics"),
    "headphones": ("headphones", "electronics"), "camera": ("camera", "electronics"),
    "camera-retro": ("film camera", "electronics"), "video": ("video camera", "electronics"),
    "calculator": ("calculator", "electronics"), "computer-mouse": ("computer mouse", "electronics"),
    "keyboard": ("keyboard", "electronics"), "print": ("printer", "electronics"),
    "floppy-disk": ("floppy disk", "electronics"), "walkie-talkie": ("walkie-talkie", "electronics"),
    "sim-card": ("SIM card", "electronics"), "sd-card": ("memory card", "electronics"),
    "memory": ("RAM stick", "electronics"), "microchip": ("microchip", "electronics"),
    "plug": ("plug", "electronics"), "battery-full": ("battery", "electronics"),
    "car-battery": ("car battery", "electronics"), "lightbulb": ("light bulb", "electronics"),
    "gamepad": ("gamepad", "electronics"), "satellite-dish": ("satellite dish", "electronics"),
    "fan": ("electric fan", "electronics"), "headset": ("headset", "electronics"),
    "compact-disc": ("CD", "electronics"),
    # clothing and accessories
    "shirt": ("T-shirt", "clothing"), "vest": ("vest", "clothing"),
    "hat-cowboy": ("cowboy hat", "clothing"), "hat-wizard": ("wizard hat", "clothing"),
    "graduation-cap": ("graduation cap", "clothing"), "socks": ("socks", "clothing"),
    "mitten": ("mitten", "clothing"), "glasses": ("glasses", "clothing"),
    "crown": ("crown", "clothing"), "ring": ("ring", "clothing"), "gem": ("gemstone", "clothing"),
    "wallet": ("wallet", "clothing"), "briefcase": ("briefcase", "clothing"),
    "suitcase": ("suitcase", "clothing"), "umbrella": ("umbrella", "clothing"),
    "bag-shopping": ("shopping bag", "clothing"),
    # sports
    "basketball": ("basketball", "sports"), "futbol": ("soccer ball", "sports"),
    "volleyball": ("volleyball", "sports"), "baseball": ("baseball", "sports"),
    "football": ("american football", "sports"), "bowling-ball": ("bowling ball", "sports"),
    "golf-ball-tee": ("golf ball", "sports"), "table-tennis-paddle-ball": ("ping-pong paddle", "sports"),
    "dumbbell": ("dumbbell", "sports"), "hockey-puck": ("hockey puck", "sports"),
    "trophy": ("trophy", "sports"), "medal": ("medal", "sports"), "stopwatch": ("stopwatch", "sports"),
    # music
    "guitar": ("guitar", "music"), "drum": ("drum", "music"), "record-vinyl": ("vinyl record", "music"),
    "drum-steelpan": ("steel drum", "music"), "bell": ("bell", "music"),
    "bullhorn": ("megaphone", "music"),
    # stationery
    "pen": ("pen", "stationery"), "pencil": ("pencil", "stationery"),
    "pen-nib": ("fountain pen", "stationery"), "eraser": ("eraser", "stationery"),
    "marker": ("marker", "stationery"), "highlighter": ("highlighter", "stationery"),
    "stapler": ("stapler", "stationery"), "thumbtack": ("thumbtack", "stationery"),
    "paperclip": ("paperclip", "stationery"), "book": ("book", "stationery"),
    "envelope": ("envelope", "stationery"), "scroll": ("scroll", "stationery"),
    "newspaper": ("newspaper", "stationery"), "map": ("map", "stationery"),
    "stamp": ("rubber stamp", "stationery"), "calendar": ("calendar", "stationery"),
    "ticket": ("ticket", "stationery"), "tag": ("price tag", "stationery"),
    "palette": ("paint palette", "stationery"),
    # furniture and household
    "chair": ("chair", "furniture"), "couch": ("sofa", "furniture"), "bed": ("bed", "furniture"),
    "bath": ("bathtub", "furniture"), "toilet": ("toilet", "furniture"), "sink": ("sink", "furniture"),
    "rug": ("rug", "furniture"), "door-closed": ("door", "furniture"),
    "faucet": ("faucet", "household"), "box": ("cardboard box", "household"),
    "gift": ("gift box", "household"), "trash-can": ("trash can", "household"),
    "box-tissue": ("tissue box", "household"), "toilet-paper": ("toilet paper", "household"),
    "soap": ("soap bar", "household"), "jug-detergent": ("detergent jug", "household"),
    "pump-soap": ("soap dispenser", "household"), "hourglass-half": ("hourglass", "household"),
    "clock": ("clock", "household"), "globe": ("globe", "household"),
    "piggy-bank": ("piggy bank", "household"), "coins": ("coins", "household"),
    "credit-card": ("credit card", "household"), "money-bill": ("banknote", "household"),
    "fire-burner": ("gas stove", "household"),
    # medical
    "syringe": ("syringe", "medical"), "pills": ("pill", "medical"),
    "thermometer": ("thermometer", "medical"), "stethoscope": ("stethoscope", "medical"),
    "bandage": ("bandage", "medical"), "crutch": ("crutch", "medical"),
    "prescription-bottle": ("pill bottle", "medical"), "capsules": ("capsule", "medical"),
    "eye-dropper": ("eye dropper", "medical"), "tooth": ("tooth", "medical"),
    "flask": ("flask", "medical"), "vial": ("test tube", "medical"), "microscope": ("microscope", "medical"),
    # plants and outdoors
    "tree": ("tree", "plant"), "seedling": ("seedling", "plant"), "leaf": ("leaf", "plant"),
    "clover": ("clover", "plant"), "feather": ("feather", "plant"), "tent": ("tent", "outdoor"),
    "anchor": ("anchor", "outdoor"), "snowman": ("snowman", "outdoor"),
    "umbrella-beach": ("beach umbrella", "outdoor"), "igloo": ("igloo", "outdoor"),
    "flag": ("flag", "outdoor"), "campground": ("teepee", "outdoor"),
    # toys and games
    "chess-knight": ("chess knight", "toy"), "chess-rook": ("chess rook", "toy"),
    "chess-pawn": ("chess pawn", "toy"), "chess-queen": ("chess queen", "toy"),
    "chess-king": ("chess king", "toy"), "chess-bishop": ("chess bishop", "toy"),
    "dice": ("dice", "toy"), "puzzle-piece": ("puzzle piece", "toy"), "robot": ("toy robot", "toy"),
    "ghost": ("ghost figure", "toy"), "mask": ("carnival mask", "toy"),
    # partners for the commonality track's functional relations (dicobench/sources/relations.py)
    "trailer": ("trailer", "vehicle"), "computer": ("desktop computer", "electronics"),
    "server": ("server rack", "electronics"), "hard-drive": ("hard drive", "electronics"),
    "film": ("film strip", "electronics"), "solar-panel": ("solar panel", "electronics"),
    "charging-station": ("charging station", "electronics"), "gas-pump": ("fuel pump", "outdoor"),
    "cash-register": ("cash register", "electronics"), "bookmark": ("bookmark", "stationery"),
    "file": ("sheet of paper", "stationery"), "fill-drip": ("paint bucket", "tool"),
    "chess-board": ("chessboard", "toy"), "handcuffs": ("handcuffs", "tool"),
    "bowl-food": ("food bowl", "kitchenware"),
}

# Names changed after an audit of the drawn glyphs (what a person calls what is drawn). The
# name-embedding table keeps each one's former vector, since the object itself did not change,
# so that seeded draws that rank names by meaning stay the same.
FORMER_NAMES: dict[str, str] = {
    "whole fish": "fish fillet",  # a whole fish is drawn
    "gas stove": "stove burner",  # a flame on a stove top, not a lone burner
    "steel drum": "steelpan",  # the everyday name of the instrument
    "test tube": "vial",  # drawn as a round-bottomed tube
    "grasshopper": "locust",  # the everyday name of what is drawn
    "pot and pan": "cooking pot",  # a pot and a frying pan are drawn
}

FONT_FILES = {"solid": "fa-solid-900.ttf", "regular": "fa-regular-400.ttf"}


@dataclass(frozen=True)
class CatalogueEntry:
    icon: str
    name: str
    category: str
    synonyms: tuple[str, ...]
    codepoint: int
    styles: tuple[str, ...]  # font styles with a glyph: "solid", and "regular" (outline) for some


def _package_root() -> Path:
    # Locate the wheel's files without importing it (it is a Django app).
    spec = importlib.util.find_spec("fontawesomefree")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the `fontawesomefree` package is required: pip install fontawesomefree")
    return Path(next(iter(spec.submodule_search_locations))) / "static" / "fontawesomefree"


def font_path(style: str = "solid") -> Path:
    return _package_root() / "webfonts" / FONT_FILES[style]


def _synonyms(name: str, terms) -> tuple[str, ...]:
    out = []
    for term in terms:
        term = term.strip().lower()
        if term and term != name.lower() and term.replace(" ", "").replace("-", "").isalpha() and term not in out:
            out.append(term)
    return tuple(out)


@functools.lru_cache(maxsize=1)
def load_catalogue() -> tuple[CatalogueEntry, ...]:
    """All curated objects, sorted by icon id so that seeded draws are stable."""
    icons = json.loads((_package_root() / "metadata" / "icons.json").read_text(encoding="utf-8"))
    entries = []
    for icon, (name, category) in sorted(CURATED.items()):
        meta = icons.get(icon)
        if meta is None or "solid" not in meta.get("free", []):
            raise RuntimeError(f"Font Awesome icon {icon!r} is missing; fontawesomefree>=6.5 is required")
        styles = tuple(s for s in ("solid", "regular") if s in meta["free"])
        entries.append(
            CatalogueEntry(icon, name, category, _synonyms(name, meta["search"]["terms"]), int(meta["unicode"], 16), styles)
        )
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise RuntimeError("catalogue object names must be unique")
    return tuple(entries)


@functools.lru_cache(maxsize=1)
def by_name() -> dict[str, CatalogueEntry]:
    return {e.name: e for e in load_catalogue()}
