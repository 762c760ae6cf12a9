"""End-to-end tuning run: live-like calibration from frames (with the empty table), then play frames."""
import sys, time, collections, argparse
sys.path.insert(0,"/tmp/vr")
import cv2, numpy as np
from engine.cards import DECK
from scenes import compose_pair
from bench.vision_plain import frame_cards, random_conditions, in_full_view, score_frame
from vision.plainx import recognize_plain
from vision.plainx.find import find_outlines, top_level
from vision.plainx.straighten import face_of
from vision.plainx.deck import PlainDeck
from vision.plainx.background import TableModel
cv2.setNumThreads(1)
ap=argparse.ArgumentParser(); ap.add_argument("--decks",default="standard"); ap.add_argument("--frames",type=int,default=10)
ap.add_argument("--seed",type=int,default=0); ap.add_argument("--surf",default="cloth,paper"); ap.add_argument("-v",action="store_true")
ap.add_argument("--size",default="640x480"); ap.add_argument("--single",action="store_true", help="no learnt table in play")
args=ap.parse_args()
size=tuple(int(x) for x in args.size.split("x"))
def cal_conditions(rng):
    c=random_conditions(rng); c.pop("glare",None); c.pop("hand",None); c.pop("hand_cover",None); return c
def calibrate(design, paper, seed):
    faces={}; sizes=[]
    for k,card in enumerate(DECK):
        rng=np.random.default_rng([seed,999,k])
        cond=cal_conditions(rng)
        if paper: cond.pop("cloth")
        pl=[{"card":card,"at":"NESW"[k%4],"rotation":float(rng.uniform(0,360)),"sticker":False,"jitter_mm":8.0}]
        img,empty,truth=compose_pair(pl,size,[seed,999,k,1],deck=design,paper=paper,**cond)
        t=TableModel(); t.learn(empty)
        outs=top_level(find_outlines(img,None,table_edges=t.table_edges(img)))
        if not outs:
            print("  calibration: no card found for", card); continue
        o=max(outs,key=lambda o:o.area)
        faces[card]=face_of(img,o.corners)
        sizes.append(o.long_side/size[1])
    asp=float(np.median([f.shape[1]/f.shape[0] for f in faces.values()]))
    return PlainDeck(name=design,cards=list(faces),faces=list(faces.values()),aspect=asp,card_px=float(np.median(sizes)))
tot=collections.Counter()
for design in args.decks.split(","):
  for surf in args.surf.split(","):
    paper=surf=="paper"
    t0=time.time()
    deck=calibrate(design,paper,args.seed)
    c=collections.Counter(); times=[]
    for f in range(args.frames):
        rng=np.random.default_rng([args.seed,f])
        cards=frame_cards(rng,4); cond=random_conditions(rng)
        if paper: cond.pop("cloth")
        img,empty,truth=compose_pair(cards,size,[args.seed,f,1],deck=design,paper=paper,**cond)
        table=None
        if not args.single:
            table=TableModel(); table.learn(empty)
        c0=time.thread_time()
        s=recognize_plain(img,deck,table=table)
        times.append((time.thread_time()-c0)*1000)
        r=score_frame(s,truth,size)
        for k,v in r.items(): c[k]+=v
        if args.v and (r["wrong"] or r["refused"]):
            print(f"  {design} {surf} frame {f}: {r} truth={[str(t['card']) for t in truth]} seen={[(str(x.card),str(x.guess),x.reason, {k:(round(v,2) if isinstance(v,float) else str(v)) for k,v in (x.detail or {}).items()}) for x in s]}")
    n=c["correct"]+c["refused"]
    print(f"{design:12s} {surf:6s} cards {n:4d} correct {100*c['correct']/max(n,1):6.2f}% refused {c['refused']:3d} wrong {c['wrong']:2d} hand {c['covered_named']}/{c['covered']} ms {np.median(times):.1f}  ({time.time()-t0:.0f}s)", flush=True)
    for k,v in c.items(): tot[k]+=v
n=tot["correct"]+tot["refused"]
print(f"TOTAL cards {n} correct {100*tot['correct']/max(n,1):.2f}% refused {tot['refused']} wrong {tot['wrong']}")
