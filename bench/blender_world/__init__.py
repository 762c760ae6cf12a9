"""A second, physically based renderer of card tables (Blender's Cycles), for validating the plain-deck reader on frames nobody tunes on.

``scene`` runs inside Blender and builds one table scene from a JSON description;
``camera`` is the camera model (pose, projection, lens distortion) and the camera's
processing after the lens (sensor, white balance, tone, sharpening, JPEG);
``world`` draws the tables, lights, cameras and card layouts from a seed and computes
the truth; ``generate`` drives Blender and fills the frame cache. The benchmark that
reads the frames is ``bench.vision_blender``. See docs/vision-bench.md.
"""
