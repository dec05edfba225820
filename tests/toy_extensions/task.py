"""A toy DiCoBench task: the attribute task's scene edits narrowed to surface styles (no
recolouring); from photos, the attribute task's recolour, which an editor build asks the editor for."""

from dicobench.editors.scene.attribute import restyle, two_changes
from dicobench.kit.registry import Ref
from dicobench.sources.procedural import cue_objects, scene_difference
from dicobench.tasks import edits_for
from dicobench.tasks.registry import DIFFERENCE, ModelEdit, Task


def propose(rng, scene, cfg):
    return edits_for(rng, scene, cfg, lambda obj, used: restyle(rng, scene, obj, cfg),
                     lambda obj, used: two_changes(rng, scene, obj, cfg), cue_objects(scene, cfg))


proposal = scene_difference(propose)

RESTYLE = Task("toy_restyle", "Sty.", DIFFERENCE,
               {"procedural": Ref("toy_extensions.task:proposal"),
                "photos": Ref("dicobench.sources.photo_difference:recolour_proposal")},
               ModelEdit(Ref("dicobench.editors.photo.instructed:recolour_plan"), "change the colour of the object"))
