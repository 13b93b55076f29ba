"""What the rasterizers of both ISAs share: meshes (:mod:`.mesh`), image files
(:mod:`.images`), clipping (:mod:`.clip`) and the difference heat map
(:mod:`.heat`)."""
