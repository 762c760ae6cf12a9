"""Runs inside Blender: builds card-table scenes from JSON descriptions and renders them with Cycles (linear light, and each object's index for the truth).

    blender -b --factory-startup -noaudio -t 1 --python bench/blender_world/scene.py -- JOBS.json

``JOBS.json`` is a list of jobs written by ``bench.blender_world.world``; each job is a
complete scene: render settings, the camera (``Camera.blender()``), the room's light
(``world``), lamps and windows (``lights``), the table top (``table``: wood, felt, cloth,
patterned cloth, carpet or tiles, all procedural), the printed mat (``mat``: a sheet of
paper with the mat's art, bent a little), the cards (meshes whose vertices the driver
computed: the truth's corners are vertices of the same meshes) and a hand and arm
(``hand``: a skeleton Blender's skin modifier dresses). Each job writes two 16-bit PNGs:
the image in linear light (Blender's "Raw" view: no view transform; 65535 = 4x the
``white`` level the driver chose) and the object index of the nearest surface (0: the
table, cards 1..n, the hand 100, the mat 200).

Only Blender's own Python and the standard library are used here: Debian's Blender has
no numpy.
"""
import json
import math
import os
import sys
import time

import bpy

HAND_INDEX, MAT_INDEX = 100, 200


# ---------------------------------------------------------------- node helpers
class Graph:
    """A small helper over a node tree: ``g.node(type, **props)``, ``g.link(a, b)``,
    ``g.math(op, a, b)`` where inputs may be sockets or numbers."""

    def __init__(self, tree):
        self.tree = tree
        self.nodes, self.links = tree.nodes, tree.links

    def node(self, kind, inputs=None, **props):
        n = self.nodes.new(kind)
        for k, v in props.items():
            setattr(n, k, v)
        for k, v in (inputs or {}).items():
            self.set(n.inputs[k], v)
        return n

    def set(self, socket, value):
        if isinstance(value, bpy.types.NodeSocket):
            self.links.new(value, socket)
        elif isinstance(value, (list, tuple)):
            v = list(value)
            if len(socket.default_value) == 4 and len(v) == 3:
                v.append(1.0)
            socket.default_value = v
        else:
            socket.default_value = value

    def link(self, a, b):
        self.links.new(a, b)

    def math(self, op, a, b=0.0, clamp=False):
        n = self.node("ShaderNodeMath", operation=op, use_clamp=clamp)
        self.set(n.inputs[0], a)
        self.set(n.inputs[1], b)
        return n.outputs[0]

    def vmath(self, op, a, b=(0.0, 0.0, 0.0), out=0):
        n = self.node("ShaderNodeVectorMath", operation=op)
        self.set(n.inputs[0], a)
        self.set(n.inputs[1], b)
        return n.outputs[out]

    def mix(self, fac, a, b, blend="MIX"):
        n = self.node("ShaderNodeMixRGB", blend_type=blend)
        self.set(n.inputs["Fac"], fac)
        self.set(n.inputs["Color1"], a)
        self.set(n.inputs["Color2"], b)
        return n.outputs["Color"]

    def ramp(self, fac, stops, interpolation="LINEAR"):
        """A colour ramp: ``stops`` [(position, (r, g, b)), ...]."""
        n = self.node("ShaderNodeValToRGB")
        cr = n.color_ramp
        cr.interpolation = interpolation
        while len(cr.elements) < len(stops):
            cr.elements.new(0.5)
        for el, (pos, col) in zip(cr.elements, stops):
            el.position = pos
            el.color = list(col) + [1.0] if len(col) == 3 else list(col)
        self.set(n.inputs["Fac"], fac)
        return n.outputs["Color"]

    def noise(self, vec, scale, detail=2.0, rough=0.5, distortion=0.0, out="Fac"):
        n = self.node("ShaderNodeTexNoise", {"Scale": scale, "Detail": detail, "Roughness": rough,
                                             "Distortion": distortion})
        self.set(n.inputs["Vector"], vec)
        return n.outputs[out]

    def mapping(self, vec, location=(0, 0, 0), rotation=(0, 0, 0), scale=(1, 1, 1)):
        n = self.node("ShaderNodeMapping", {"Location": location, "Rotation": rotation, "Scale": scale})
        self.set(n.inputs["Vector"], vec)
        return n.outputs["Vector"]

    def xyz(self, vec):
        n = self.node("ShaderNodeSeparateXYZ")
        self.set(n.inputs[0], vec)
        return n.outputs

    def combine(self, x, y, z):
        n = self.node("ShaderNodeCombineXYZ")
        for i, v in enumerate((x, y, z)):
            self.set(n.inputs[i], v)
        return n.outputs[0]

    def stripe(self, coord, period, duty):
        """1 where frac(coord / period) < duty, else 0 (slightly softened)."""
        f = self.math("FRACT", self.math("DIVIDE", coord, period))
        return self.math("SMOOTH_MIN", self.math("LESS_THAN", f, duty), 1.0)


def principled(mat_name, pass_index=None):
    mat = bpy.data.materials.new(mat_name)
    mat.use_nodes = True
    g = Graph(mat.node_tree)
    bsdf = g.nodes["Principled BSDF"]
    if pass_index is not None:
        mat.pass_index = pass_index
    return mat, g, bsdf


def coords(g):
    return g.node("ShaderNodeTexCoord").outputs["Object"]


def bump(g, bsdf, height, strength, distance):
    b = g.node("ShaderNodeBump", {"Strength": strength, "Distance": distance})
    g.set(b.inputs["Height"], height)
    g.link(b.outputs["Normal"], bsdf.inputs["Normal"])
    return b


def set_bsdf(g, bsdf, **kw):
    names = {"base": "Base Color", "rough": "Roughness", "spec": "Specular", "coat": "Clearcoat",
             "coat_rough": "Clearcoat Roughness", "sheen": "Sheen", "sheen_tint": "Sheen Tint",
             "sss": "Subsurface", "sss_radius": "Subsurface Radius", "sss_colour": "Subsurface Color"}
    for k, v in kw.items():
        g.set(bsdf.inputs[names[k]], v)


# ---------------------------------------------------------------- table tops
def wood(g, bsdf, t):
    """Planks of a wood species: growth rings of a log cut lengthwise (concentric
    cylinders along the grain, sliced by the plank's face: stripes that wander and
    close into arches), fibres and pores along the grain, a tint per plank, joints
    between planks, and the finish (matte oil, satin or gloss varnish)."""
    p = g.mapping(coords(g), rotation=(0, 0, math.radians(t["grain_deg"])))
    brick = g.node("ShaderNodeTexBrick", {"Color1": (0, 0, 0), "Color2": (1, 1, 1), "Mortar": (1, 1, 1),
                                           "Scale": 1.0, "Mortar Size": t["joint_m"], "Mortar Smooth": 0.3,
                                           "Bias": 0.0, "Brick Width": t["board_len_m"],
                                           "Row Height": t["board_m"]},
                   offset=t["board_offset"], offset_frequency=1, squash=1.0, squash_frequency=1)
    g.set(brick.inputs["Vector"], p)
    board = g.xyz(brick.outputs["Color"])[0]          # a random number per plank
    joint = brick.outputs["Fac"]
    # Each plank is cut from another part of a log: move the rings' centre per plank.
    off = g.combine(g.math("MULTIPLY", board, 3.7), g.math("MULTIPLY", board, t["pith_spread_m"]),
                    g.math("ADD", g.math("MULTIPLY", board, 0.6 * t["pith_depth_m"]), t["pith_depth_m"]))
    q = g.vmath("ADD", p, off)
    # The log's axis dips into the plank and runs a little across it: the plank's face
    # cuts the rings at a slant, and they close into arches.
    q = g.mapping(q, rotation=(0, math.radians(t["dip_deg"]), math.radians(t["taper_deg"])))
    # The rings wander slowly (a smooth noise bends them), as a tree's growth does.
    wob = g.noise(g.mapping(q, scale=(0.15, 1, 1)), 8.0, detail=1.0, rough=0.4)
    q = g.vmath("ADD", q, g.combine(0, g.math("MULTIPLY", g.math("SUBTRACT", wob, 0.5), t["ring_wobble"] * 0.004), 0))
    # Years of fast and slow growth: ring widths vary from ring to ring (a noise of the
    # distance from the pith shifts the rings' phase).
    qx, qy, qz = g.xyz(q)
    radius = g.math("SQRT", g.math("ADD", g.math("MULTIPLY", qy, qy), g.math("MULTIPLY", qz, qz)))
    years = g.noise(g.combine(g.math("MULTIPLY", radius, t["ring_scale"] * 20 / (2 * math.pi) / 3), 0.5, 0.5),
                    1.0, detail=1.0, rough=0.5)
    wave = g.node("ShaderNodeTexWave", {"Scale": t["ring_scale"], "Distortion": 0.0, "Detail": 0.0},
                  wave_type="RINGS", rings_direction="X", wave_profile="SAW")
    g.set(wave.inputs["Vector"], q)
    g.set(wave.inputs["Phase Offset"], g.math("MULTIPLY", g.math("SUBTRACT", years, 0.5),
                                              2 * math.pi * t.get("ring_irregular", 1.5)))
    ring = wave.outputs["Fac"]
    late = g.math("POWER", ring, t["late_sharp"])
    colour = g.ramp(late, [(0.0, t["early"]), (0.45, t["early"]), (0.85, t["late"]), (1.0, t["late"])])
    # Fibres: noise stretched along the grain.
    fib = g.noise(g.mapping(q, scale=(t["fibre_stretch"], 1, 1)), t["fibre_scale"], detail=4, rough=0.6)
    colour = g.mix(g.math("MULTIPLY", g.math("SUBTRACT", fib, 0.5), t["fibre_amount"]), colour,
                   (0, 0, 0), "LINEAR_LIGHT")
    # Pores: short dark dashes along the grain (open-pored woods show more of them).
    pores = g.noise(g.mapping(q, scale=(0.1, 1, 1)), t["pore_scale"], detail=0.0, rough=0.3)
    pore = g.math("MULTIPLY", g.math("POWER", g.math("MULTIPLY", pores, 1.45), 8.0), t["pore_share"] * 4)
    colour = g.mix(g.math("MINIMUM", pore, 1.0), colour, t["late"])
    # A tint per plank and slow colour drift along the table.
    tint = g.math("ADD", 1 - t["board_tint"] / 2, g.math("MULTIPLY", board, t["board_tint"]))
    colour = g.mix(1.0, colour, g.combine(tint, tint, tint), "MULTIPLY")
    drift = g.noise(p, 1.5, detail=1)
    colour = g.mix(g.math("MULTIPLY", drift, 0.25), colour, t["late"], "MIX")
    colour = g.mix(g.math("MULTIPLY", joint, 0.85), colour, (0.02, 0.015, 0.01))
    g.link(colour, bsdf.inputs["Base Color"])
    f = t["finish"]
    set_bsdf(g, bsdf, rough=f["rough"], spec=f["spec"], coat=f["coat"], coat_rough=f["coat_rough"])
    height = g.math("ADD", g.math("MULTIPLY", fib, 0.3),
                    g.math("SUBTRACT", g.math("MULTIPLY", g.math("MINIMUM", pore, 1.0), -0.5),
                           g.math("MULTIPLY", joint, 2.0)))
    bump(g, bsdf, height, f["bump"], 0.0004)


def felt(g, bsdf, t):
    """Card-table felt: a matte, fuzzy cloth whose colour mottles a little, with a sheen
    at grazing angles and a fine fibre relief."""
    p = coords(g)
    mottle = g.noise(p, 60.0, detail=3, rough=0.6)
    fine = g.noise(p, 1800.0, detail=2, rough=0.7)
    lo = [c * (1 - t["mottle"]) for c in t["colour"]]
    hi = [min(1.0, c * (1 + t["mottle"])) for c in t["colour"]]
    colour = g.ramp(g.math("ADD", g.math("MULTIPLY", mottle, 0.7), g.math("MULTIPLY", fine, 0.3)),
                    [(0.3, lo), (0.7, hi)])
    g.link(colour, bsdf.inputs["Base Color"])
    set_bsdf(g, bsdf, rough=0.95, spec=0.25, sheen=1.0, sheen_tint=0.6)
    bump(g, bsdf, fine, 0.35, 0.0003)


def weave(g, p, period, angle_deg=0.0):
    """A plain weave's relief (0..1) and the per-thread colour variation."""
    q = g.mapping(p, rotation=(0, 0, math.radians(angle_deg)))
    x, y, _z = g.xyz(q)
    k = 2 * math.pi / period
    sx = g.math("SINE", g.math("MULTIPLY", x, k))
    sy = g.math("SINE", g.math("MULTIPLY", y, k))
    relief = g.math("ADD", 0.5, g.math("MULTIPLY", g.math("MULTIPLY", sx, sy), 0.5))
    threads = g.noise(g.mapping(q, scale=(0.02, 1, 1)), 1.0 / period * 0.5, detail=1)
    threads2 = g.noise(g.mapping(q, scale=(1, 0.02, 1)), 1.0 / period * 0.5, detail=1)
    return relief, g.math("ADD", g.math("MULTIPLY", threads, 0.5), g.math("MULTIPLY", threads2, 0.5)), q


def cloth(g, bsdf, t):
    """Woven cloth of one colour (a tablecloth): the weave's relief, thread-to-thread
    colour variation, a soft sheen."""
    relief, var, _ = weave(g, coords(g), t["period_m"], t["angle_deg"])
    lo = [c * 0.88 for c in t["colour"]]
    hi = [min(1.0, c * 1.1) for c in t["colour"]]
    colour = g.ramp(g.math("ADD", g.math("MULTIPLY", var, 0.6), g.math("MULTIPLY", relief, 0.4)),
                    [(0.25, lo), (0.75, hi)])
    g.link(colour, bsdf.inputs["Base Color"])
    set_bsdf(g, bsdf, rough=0.85, spec=0.3, sheen=0.6, sheen_tint=0.5)
    bump(g, bsdf, relief, 0.45, 0.0003)


def pattern(g, bsdf, t):
    """Patterned cloth: gingham checks, stripes, tartan, a floral-like print, polka dots;
    woven, so the weave's relief is there too."""
    relief, var, q = weave(g, coords(g), t["period_m"], t["angle_deg"])
    x, y, _z = g.xyz(q)
    cols = t["colours"]
    kind = t["pattern"]
    P = t["repeat_m"]
    if kind == "checks":
        sx = g.stripe(x, P, 0.5)
        sy = g.stripe(y, P, 0.5)
        # Gingham: white, one stripe (a tint) or both crossing (the full colour).
        colour = g.ramp(g.math("MULTIPLY", g.math("ADD", sx, sy), 0.5),
                        [(0.0, cols[0]), (0.25, cols[1]), (0.75, cols[2])], "CONSTANT")
    elif kind == "stripes":
        f = g.math("FRACT", g.math("DIVIDE", x, P))
        colour = g.ramp(f, [(0.0, cols[0]), (0.45, cols[1]), (0.6, cols[2]), (0.7, cols[1])], "CONSTANT")
    elif kind == "tartan":
        stops = [(0.0, cols[0]), (0.3, cols[1]), (0.42, cols[0]), (0.55, cols[2]), (0.6, cols[0]),
                 (0.78, cols[3 % len(cols)]), (0.84, cols[0])]
        cx = g.ramp(g.math("FRACT", g.math("DIVIDE", x, P)), stops, "CONSTANT")
        cy = g.ramp(g.math("FRACT", g.math("DIVIDE", y, P)), stops, "CONSTANT")
        # A twill shows the warp and the weft in diagonal lines: mix them finely.
        diag = g.math("GREATER_THAN", g.math("FRACT", g.math("DIVIDE", g.math("ADD", x, y),
                                                                       t["period_m"] * 2)), 0.5)
        colour = g.mix(g.math("ADD", 0.3, g.math("MULTIPLY", diag, 0.4)), cx, cy)
    elif kind == "print":
        blobs = g.noise(q, 1.0 / P, detail=2, rough=0.5, distortion=0.6)
        vor = g.node("ShaderNodeTexVoronoi", {"Scale": 2.0 / P})
        g.set(vor.inputs["Vector"], q)
        dots = g.math("LESS_THAN", vor.outputs["Distance"], 0.18)
        colour = g.ramp(blobs, [(0.0, cols[0]), (0.48, cols[1]), (0.56, cols[0]), (0.62, cols[2])],
                        "CONSTANT")
        colour = g.mix(dots, colour, cols[3 % len(cols)])
    else:  # dots
        vx = g.math("SUBTRACT", g.math("FRACT", g.math("DIVIDE", x, P)), 0.5)
        vy = g.math("SUBTRACT", g.math("FRACT", g.math("DIVIDE", y, P)), 0.5)
        r = g.math("SQRT", g.math("ADD", g.math("MULTIPLY", vx, vx), g.math("MULTIPLY", vy, vy)))
        colour = g.mix(g.math("LESS_THAN", r, t["dot"]), cols[0], cols[1])
    colour = g.mix(g.math("MULTIPLY", g.math("SUBTRACT", var, 0.5), 0.25), colour, (0, 0, 0), "LINEAR_LIGHT")
    g.link(colour, bsdf.inputs["Base Color"])
    set_bsdf(g, bsdf, rough=0.85, spec=0.3, sheen=0.6, sheen_tint=0.5)
    bump(g, bsdf, relief, 0.4, 0.0003)


def carpet(g, bsdf, t):
    """Carpet: loops (or a shag) of yarn: a deep relief of tufts with dark gaps
    between them, heathered yarn of two or three colours."""
    p = coords(g)
    vor = g.node("ShaderNodeTexVoronoi", {"Scale": 1.0 / t["tuft_m"], "Randomness": 0.9})
    g.set(vor.inputs["Vector"], g.mapping(p, scale=(1, t["stretch"], 1)))
    d = vor.outputs["Distance"]
    fibre = g.noise(p, 0.3 / t["tuft_m"] * 10, detail=4, rough=0.8)
    tuft = g.math("SUBTRACT", 1.0, g.math("MULTIPLY", d, 1.6), clamp=True)
    heather = g.noise(g.vmath("ADD", p, vor.outputs["Color"]), 1.0 / t["tuft_m"] * 0.7, detail=2)
    cols = t["colours"]
    colour = g.ramp(heather, [(0.3, cols[0]), (0.5, cols[1]), (0.7, cols[-1])])
    shade = g.math("ADD", t["gap_dark"], g.math("MULTIPLY", tuft, 1 - t["gap_dark"]))
    colour = g.mix(1.0, colour, g.combine(shade, shade, shade), "MULTIPLY")
    colour = g.mix(g.math("MULTIPLY", g.math("SUBTRACT", fibre, 0.5), 0.4), colour, (0, 0, 0), "LINEAR_LIGHT")
    g.link(colour, bsdf.inputs["Base Color"])
    set_bsdf(g, bsdf, rough=1.0, spec=0.2, sheen=1.0, sheen_tint=0.5)
    bump(g, bsdf, g.math("ADD", tuft, g.math("MULTIPLY", fibre, 0.3)), 0.8, t["tuft_m"] * 0.4)


def tiles(g, bsdf, t):
    """Glazed ceramic or polished marble tiles on a grid, grout lines between them."""
    p = g.mapping(coords(g), rotation=(0, 0, math.radians(t["angle_deg"])))
    brick = g.node("ShaderNodeTexBrick", {"Color1": (0, 0, 0), "Color2": (1, 1, 1), "Mortar": (1, 1, 1),
                                           "Scale": 1.0, "Mortar Size": t["grout_m"], "Mortar Smooth": 0.2,
                                           "Bias": 0.0, "Brick Width": t["tile_m"], "Row Height": t["tile_m"]},
                   offset=0.0, offset_frequency=1, squash=1.0, squash_frequency=1)
    g.set(brick.inputs["Vector"], p)
    cell = g.xyz(brick.outputs["Color"])[0]
    grout = brick.outputs["Fac"]
    base = t["colour"]
    if t["tiles"] == "marble":
        q = g.vmath("ADD", p, g.combine(g.math("MULTIPLY", cell, 5.0), 0, 0))
        wave = g.node("ShaderNodeTexWave", {"Scale": t["vein_scale"], "Distortion": 12.0, "Detail": 6.0,
                                             "Detail Scale": 1.5, "Detail Roughness": 0.65},
                      wave_type="BANDS", bands_direction="DIAGONAL", wave_profile="SIN")
        g.set(wave.inputs["Vector"], q)
        vein = g.math("POWER", g.math("SUBTRACT", 1.0, wave.outputs["Fac"]), 10.0)
        cloud = g.noise(q, 8.0, detail=4)
        colour = g.mix(g.math("MULTIPLY", cloud, 0.3), base, t["vein"])
        colour = g.mix(g.math("MULTIPLY", vein, 0.85), colour, t["vein"])
    else:
        speck = g.noise(p, 300.0, detail=2)
        tint = g.math("ADD", 0.94, g.math("MULTIPLY", cell, 0.12))
        colour = g.mix(1.0, base, g.combine(tint, tint, tint), "MULTIPLY")
        colour = g.mix(g.math("MULTIPLY", g.math("SUBTRACT", speck, 0.5), 0.15), colour, (0, 0, 0),
                       "LINEAR_LIGHT")
    colour = g.mix(grout, colour, t["grout"])
    g.link(colour, bsdf.inputs["Base Color"])
    rough = g.math("ADD", t["rough"], g.math("MULTIPLY", grout, 0.8), clamp=True)
    g.link(rough, bsdf.inputs["Roughness"])
    set_bsdf(g, bsdf, spec=0.5, coat=t["coat"], coat_rough=0.04)
    bump(g, bsdf, g.math("MULTIPLY", grout, -1.0), 0.6, 0.0015)


TABLES = {"wood": wood, "felt": felt, "cloth": cloth, "pattern": pattern, "carpet": carpet, "tiles": tiles}


def build_table(t):
    bpy.ops.mesh.primitive_plane_add(size=t.get("size_m", 3.0), location=(0, 0, 0))
    obj = bpy.context.object
    obj.name = "table"
    obj.pass_index = 0
    mat, g, bsdf = principled("table")
    TABLES[t["kind"]](g, bsdf, t)
    obj.data.materials.append(mat)
    return obj


# ---------------------------------------------------------------- meshes from the driver
def mesh_object(name, verts, faces, uvs=None, pass_index=0):
    me = bpy.data.meshes.new(name)
    me.from_pydata([tuple(v) for v in verts], [], [tuple(f) for f in faces])
    if uvs is not None:
        layer = me.uv_layers.new(name="UVMap")
        for poly in me.polygons:
            for li in poly.loop_indices:
                vi = me.loops[li].vertex_index
                layer.data[li].uv = uvs[vi]
    me.update()
    for poly in me.polygons:
        poly.use_smooth = True
    obj = bpy.data.objects.new(name, me)
    bpy.context.collection.objects.link(obj)
    obj.pass_index = pass_index
    return obj


def image_node(g, path, colorspace="sRGB"):
    n = g.node("ShaderNodeTexImage", interpolation="Cubic", extension="EXTEND")
    n.image = bpy.data.images.load(path, check_existing=True)
    n.image.colorspace_settings.name = colorspace
    uv = g.node("ShaderNodeUVMap")
    uv.uv_map = "UVMap"
    g.link(uv.outputs["UV"], n.inputs["Vector"])
    return n


def build_card(c):
    """A card: the driver's top surface (rounded corners, bowed), made 0.3 mm thick
    by a solidify modifier; the face's art on a coated, semi-gloss stock; a plain
    back; a paper edge."""
    obj = mesh_object(f"card{c['index']}", c["verts_m"], c["faces"], c["uvs"], c["index"])
    face, g, bsdf = principled(f"face{c['index']}")
    img = image_node(g, c["face"])
    # The art's transparent corners lie outside the mesh; under any other
    # transparency is the card's white stock.
    colour = g.mix(img.outputs["Alpha"], c["stock"], img.outputs["Color"])
    g.link(colour, bsdf.inputs["Base Color"])
    gl = c["gloss"]
    set_bsdf(g, bsdf, rough=gl["rough"], spec=gl["spec"], coat=gl["coat"], coat_rough=gl["coat_rough"])
    # The coating's orange peel and the paper's fibres under it.
    tex = g.noise(g.node("ShaderNodeTexCoord").outputs["UV"], 220.0, detail=3, rough=0.6)
    b = g.node("ShaderNodeBump", {"Strength": gl["texture"], "Distance": 0.00005})
    g.set(b.inputs["Height"], tex)
    g.link(b.outputs["Normal"], bsdf.inputs["Normal"])
    g.link(b.outputs["Normal"], bsdf.inputs["Clearcoat Normal"])
    back, gb, bb = principled(f"back{c['index']}")
    set_bsdf(gb, bb, base=c["back"], rough=gl["rough"], coat=gl["coat"], coat_rough=gl["coat_rough"])
    edge, ge, be = principled(f"edge{c['index']}")
    set_bsdf(ge, be, base=c["stock"], rough=0.8)
    for m in (face, back, edge):
        obj.data.materials.append(m)
    mod = obj.modifiers.new("thickness", "SOLIDIFY")
    mod.thickness = c["thickness_m"]
    mod.offset = -1.0
    mod.use_even_offset = True
    mod.material_offset = 1
    mod.material_offset_rim = 2
    return obj


def build_mat(m):
    """The printed mat: its art on matte paper (ink a little lighter than black, paper
    a little off white), the sheet bent by the driver."""
    obj = mesh_object("mat", m["verts_m"], m["faces"], m["uvs"], MAT_INDEX)
    mat, g, bsdf = principled("paper")
    img = image_node(g, m["image"])
    colour = g.mix(img.outputs["Color"], m["ink"], m["paper"])
    fibre = g.noise(g.node("ShaderNodeTexCoord").outputs["Object"], 900.0, detail=3)
    colour = g.mix(g.math("MULTIPLY", g.math("SUBTRACT", fibre, 0.5), 0.06), colour, (0, 0, 0), "LINEAR_LIGHT")
    g.link(colour, bsdf.inputs["Base Color"])
    set_bsdf(g, bsdf, rough=m["rough"], spec=0.35, sheen=0.3)
    bump(g, bsdf, fibre, 0.15, 0.0001)
    obj.data.materials.append(mat)
    return obj


def build_hand(h):
    """A forearm and hand: a skeleton (the driver's joints and radii) dressed by the
    skin modifier and smoothed; skin with a little subsurface scattering, or a sleeve
    over the forearm."""
    objs = []
    for part in h["parts"]:
        me = bpy.data.meshes.new(part["name"])
        me.from_pydata([tuple(v) for v in part["joints_m"]], [tuple(e) for e in part["bones"]], [])
        me.update()
        obj = bpy.data.objects.new(part["name"], me)
        bpy.context.collection.objects.link(obj)
        obj.pass_index = HAND_INDEX
        skin = obj.modifiers.new("skin", "SKIN")
        skin.use_smooth_shade = True
        for i, r in enumerate(part["radii_m"]):
            sv = me.skin_vertices[0].data[i]
            sv.radius = (r[0], r[1])
            sv.use_root = (i == 0)
        sub = obj.modifiers.new("smooth", "SUBSURF")
        sub.levels = 2
        sub.render_levels = 2
        mat, g, bsdf = principled(part["name"])
        if part["material"] == "skin":
            tone = h["skin"]
            blotch = g.noise(g.node("ShaderNodeTexCoord").outputs["Object"], 150.0, detail=2)
            colour = g.mix(g.math("MULTIPLY", g.math("SUBTRACT", blotch, 0.5), 0.15), tone, (0.5, 0.1, 0.1),
                           "LINEAR_LIGHT")
            g.link(colour, bsdf.inputs["Base Color"])
            # Skin scatters light under its surface, red light furthest.
            set_bsdf(g, bsdf, rough=0.45, spec=0.4, sss=0.35, sss_colour=tone,
                     sss_radius=(0.0036, 0.0014, 0.0008))
            bump(g, bsdf, blotch, 0.1, 0.0002)
        else:
            relief, var, _ = weave(g, g.node("ShaderNodeTexCoord").outputs["Object"], 0.0012)
            colour = g.mix(g.math("MULTIPLY", g.math("SUBTRACT", var, 0.5), 0.2), h["sleeve"], (0, 0, 0),
                           "LINEAR_LIGHT")
            g.link(colour, bsdf.inputs["Base Color"])
            set_bsdf(g, bsdf, rough=0.9, sheen=0.8)
            bump(g, bsdf, relief, 0.4, 0.0005)
        obj.data.materials.append(mat)
        objs.append(obj)
    return objs


# ---------------------------------------------------------------- lights, camera, room
def look_matrix(location, target):
    """A 4x4 matrix (rows) placing an object at ``location`` with its -z towards ``target``."""
    z = [location[i] - target[i] for i in range(3)]
    n = math.sqrt(sum(v * v for v in z))
    z = [v / n for v in z]
    up = [0.0, 0.0, 1.0] if abs(z[2]) < 0.99 else [0.0, 1.0, 0.0]
    x = [up[1] * z[2] - up[2] * z[1], up[2] * z[0] - up[0] * z[2], up[0] * z[1] - up[1] * z[0]]
    n = math.sqrt(sum(v * v for v in x))
    x = [v / n for v in x]
    y = [z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2], z[0] * x[1] - z[1] * x[0]]
    return [[x[0], y[0], z[0], location[0]], [x[1], y[1], z[1], location[1]],
            [x[2], y[2], z[2], location[2]], [0, 0, 0, 1]]


def build_light(L, k):
    data = bpy.data.lights.new(f"light{k}", type="AREA")
    data.shape = L["shape"]
    data.size = L["size_m"][0]
    if L["shape"] in ("RECTANGLE", "ELLIPSE"):
        data.size_y = L["size_m"][1]
    data.energy = L["power_w"]
    data.color = L["colour"]
    data.cycles.cast_shadow = True
    obj = bpy.data.objects.new(f"light{k}", data)
    bpy.context.collection.objects.link(obj)
    from mathutils import Matrix
    obj.matrix_world = Matrix(look_matrix(L["location_m"], L["target_m"]))
    return obj


def build_camera(c):
    from mathutils import Matrix
    data = bpy.data.cameras.new("camera")
    data.sensor_fit = "HORIZONTAL"
    data.sensor_width = c["sensor_mm"]
    data.lens = c["lens_mm"]
    data.clip_start = 0.01
    data.clip_end = 20.0
    if "fstop" in c:
        data.dof.use_dof = True
        data.dof.aperture_fstop = c["fstop"]
        data.dof.focus_distance = c["focus_m"]
    obj = bpy.data.objects.new("camera", data)
    bpy.context.collection.objects.link(obj)
    a, loc = c["axes"], c["location_m"]
    obj.matrix_world = Matrix([[a[0][0], a[0][1], a[0][2], loc[0]], [a[1][0], a[1][1], a[1][2], loc[1]],
                               [a[2][0], a[2][1], a[2][2], loc[2]], [0, 0, 0, 1]])
    bpy.context.scene.camera = obj
    return obj


def build_world(w):
    world = bpy.data.worlds.new("room")
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = list(w["colour"]) + [1.0]
    bg.inputs["Strength"].default_value = w["strength"]
    bpy.context.scene.world = world


# ---------------------------------------------------------------- rendering
def setup_render(r, out_dir):
    sc = bpy.context.scene
    sc.render.engine = "CYCLES"
    sc.cycles.device = "CPU"
    sc.cycles.samples = r["samples"]
    sc.cycles.use_adaptive_sampling = True
    sc.cycles.adaptive_threshold = r.get("adaptive", 0.02)
    sc.cycles.adaptive_min_samples = min(r["samples"], 8)
    sc.cycles.use_denoising = False
    sc.cycles.seed = r["seed"]
    sc.cycles.max_bounces = 4
    sc.cycles.diffuse_bounces = 2
    sc.cycles.glossy_bounces = 2
    sc.cycles.transmission_bounces = 0
    sc.cycles.volume_bounces = 0
    sc.cycles.transparent_max_bounces = 2
    sc.cycles.caustics_reflective = False
    sc.cycles.caustics_refractive = False
    sc.cycles.blur_glossy = 1.0
    sc.cycles.sample_clamp_indirect = 5.0    # no fireflies from rare indirect paths
    sc.render.threads_mode = "FIXED"
    sc.render.threads = r.get("threads", 1)
    sc.render.resolution_x, sc.render.resolution_y = r["canvas"]
    sc.render.resolution_percentage = 100
    sc.render.film_transparent = False
    sc.view_settings.view_transform = "Raw"
    sc.view_settings.look = "None"
    sc.view_settings.exposure = 0.0
    sc.view_settings.gamma = 1.0
    sc.display_settings.display_device = "sRGB"
    if r.get("region"):
        x0, y0, x1, y1 = r["region"]
        w, h = r["canvas"]
        sc.render.use_border = True
        sc.render.use_crop_to_border = False
        sc.render.border_min_x, sc.render.border_max_x = x0 / w, x1 / w
        # Blender's border runs from the bottom of the image.
        sc.render.border_min_y, sc.render.border_max_y = 1 - y1 / h, 1 - y0 / h
    else:
        sc.render.use_border = False
    vl = sc.view_layers[0]
    vl.use_pass_object_index = True
    vl.use_pass_z = False
    # The compositor writes the image and the index pass as 16-bit PNGs.
    sc.use_nodes = True
    tree = sc.node_tree
    for n in list(tree.nodes):
        tree.nodes.remove(n)
    rl = tree.nodes.new("CompositorNodeRLayers")
    comp = tree.nodes.new("CompositorNodeComposite")
    tree.links.new(rl.outputs["Image"], comp.inputs["Image"])
    # Scale the light so that the table's white lands near a quarter of the 16-bit range.
    mul = tree.nodes.new("CompositorNodeMixRGB")
    mul.blend_type = "MULTIPLY"
    mul.inputs[0].default_value = 1.0
    tree.links.new(rl.outputs["Image"], mul.inputs[1])
    mul.inputs[2].default_value = (r["scale"], r["scale"], r["scale"], 1.0)
    idx = tree.nodes.new("CompositorNodeMath")
    idx.operation = "DIVIDE"
    idx.inputs[1].default_value = 65535.0
    tree.links.new(rl.outputs["IndexOB"], idx.inputs[0])
    out = tree.nodes.new("CompositorNodeOutputFile")
    out.base_path = out_dir
    out.format.file_format = "PNG"
    out.format.color_depth = "16"
    out.format.color_mode = "RGB"
    out.format.compression = 15
    out.file_slots.clear()
    out.file_slots.new("image_")
    out.file_slots.new("index_")
    s = out.file_slots["index_"]
    s.use_node_format = False
    s.format.file_format = "PNG"
    s.format.color_depth = "16"
    s.format.color_mode = "BW"
    s.format.compression = 15
    tree.links.new(mul.outputs["Image"], out.inputs["image_"])
    tree.links.new(idx.outputs[0], out.inputs["index_"])


def render_job(job):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    out_dir = job["out_dir"]
    os.makedirs(out_dir, exist_ok=True)
    setup_render(job["render"], out_dir)
    build_world(job["world"])
    build_camera(job["camera"])
    for k, L in enumerate(job["lights"]):
        build_light(L, k)
    build_table(job["table"])
    if job.get("mat"):
        build_mat(job["mat"])
    for c in job["cards"]:
        build_card(c)
    if job.get("hand"):
        build_hand(job["hand"])
    sc = bpy.context.scene
    sc.frame_set(1)
    t0, c0 = time.time(), time.process_time()
    bpy.ops.render.render(write_still=False)
    took = time.time() - t0
    cpu = time.process_time() - c0
    for slot, name in (("image_", job["image"]), ("index_", job["index"])):
        src = os.path.join(out_dir, f"{slot}0001.png")
        os.replace(src, os.path.join(out_dir, name))
    return {"wall_s": round(took, 2), "cpu_s": round(cpu, 2)}


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if len(argv) != 1:
        print("usage: blender -b --python scene.py -- JOBS.json", file=sys.stderr)
        sys.exit(2)
    with open(argv[0]) as f:
        jobs = json.load(f)
    for job in jobs:
        done = os.path.join(job["out_dir"], job["image"])
        if os.path.isfile(done) and os.path.isfile(os.path.join(job["out_dir"], job["index"])):
            print(f"BLENDER-WORLD skip {job['out_dir']}/{job['image']}", flush=True)
            continue
        stats = render_job(job)
        print(f"BLENDER-WORLD done {job['out_dir']}/{job['image']} {json.dumps(stats)}", flush=True)


if __name__ == "__main__":
    main()
