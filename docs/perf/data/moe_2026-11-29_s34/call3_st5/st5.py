import csv,sys,re,statistics as st
for f in sys.argv[1:]:
    d={}
    for r in csv.DictReader(open(f)):
        if r['verdict']!='passed': continue
        d[(r['token'],r['kernelName'])]=float(r['us'])
    print('==',f)
    toks=sorted({t for t,_ in d},key=int)
    for t in toks:
        rat1=[];rat2=[]
        for (tt,k),v in d.items():
            if tt!=t: continue
            s1,s2=k.split('+')
            if 'bm64_n256_st5' in s1:
                b=d.get((t,s1.replace('_st5','_st4')+'+'+s2))
                if b: rat1.append(v/b)
            if 'bm64_n256_st5' in s2:
                b=d.get((t,s1+'+'+s2.replace('_st5','_st4')))
                if b: rat2.append(v/b)
        best5=min((v for (tt,k),v in d.items() if tt==t and '_st5' in k),default=None)
        best4=min((v for (tt,k),v in d.items() if tt==t and '_st5' not in k),default=None)
        f_=lambda x:'%.3f-%.3f med %.3f'%(min(x),max(x),st.median(x)) if x else '-'
        print(t,'s1 st5/st4',f_(rat1),'| s2 st5/st4',f_(rat2),'| best with st5 %.1f without %.1f ratio %.3f'%(best5,best4,best5/best4))
