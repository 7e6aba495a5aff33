queue "default" {
}
task "t0000" {
  queue = "default"
  concurrency = 1000
}
task "t0001" {
  queue = "default"
  concurrency = 1000
}
task "t0002" {
  queue = "default"
  concurrency = 1000
}
task "t0003" {
  queue = "default"
  concurrency = 1000
}
task "t0004" {
  queue = "default"
  concurrency = 1000
}
task "t0005" {
  queue = "default"
  concurrency = 1000
}
task "t0006" {
  queue = "default"
  concurrency = 1000
}
task "t0007" {
  queue = "default"
  concurrency = 1000
}
task "t0008" {
  queue = "default"
  concurrency = 1000
}
task "t0009" {
  queue = "default"
  concurrency = 1000
}
task "t0010" {
  queue = "default"
  concurrency = 1000
}
task "t0011" {
  queue = "default"
  concurrency = 1000
}
task "t0012" {
  queue = "default"
  concurrency = 1000
}
task "t0013" {
  queue = "default"
  concurrency = 1000
}
task "t0014" {
  queue = "default"
  concurrency = 1000
}
task "t0015" {
  queue = "default"
  concurrency = 1000
}
task "t0016" {
  queue = "default"
  concurrency = 1000
}
task "t0017" {
  queue = "default"
  concurrency = 1000
}
task "t0018" {
  queue = "default"
  concurrency = 1000
}
task "t0019" {
  queue = "default"
  concurrency = 1000
}
task "t0020" {
  queue = "default"
  concurrency = 1000
}
task "t0021" {
  queue = "default"
  concurrency = 1000
}
task "t0022" {
  queue = "default"
  concurrency = 1000
}
task "t0023" {
  queue = "default"
  concurrency = 1000
}
task "t0024" {
  queue = "default"
  concurrency = 1000
}
task "t0025" {
  queue = "default"
  concurrency = 1000
}
task "t0026" {
  queue = "default"
  concurrency = 1000
}
task "t0027" {
  queue = "default"
  concurrency = 1000
}
task "t0028" {
  queue = "default"
  concurrency = 1000
}
task "t0029" {
  queue = "default"
  concurrency = 1000
}
task "t0030" {
  queue = "default"
  concurrency = 1000
}
task "t0031" {
  queue = "default"
  concurrency = 1000
}
task "t0032" {
  queue = "default"
  concurrency = 1000
}
task "t0033" {
  queue = "default"
  concurrency = 1000
}
task "t0034" {
  queue = "default"
  concurrency = 1000
}
task "t0035" {
  queue = "default"
  concurrency = 1000
}
task "t0036" {
  queue = "default"
  concurrency = 1000
}
task "t0037" {
  queue = "default"
  concurrency = 1000
}
task "t0038" {
  queue = "default"
  concurrency = 1000
}
task "t0039" {
  queue = "default"
  concurrency = 1000
}
task "t0040" {
  queue = "default"
  concurrency = 1000
}
task "t0041" {
  queue = "default"
  concurrency = 1000
}
task "t0042" {
  queue = "default"
  concurrency = 1000
}
task "t0043" {
  queue = "default"
  concurrency = 1000
}
task "t0044" {
  queue = "default"
  concurrency = 1000
}
task "t0045" {
  queue = "default"
  concurrency = 1000
}
task "t0046" {
  queue = "default"
  concurrency = 1000
}
task "t0047" {
  queue = "default"
  concurrency = 1000
}
task "t0048" {
  queue = "default"
  concurrency = 1000
}
task "t0049" {
  queue = "default"
  concurrency = 1000
}
task "t0050" {
  queue = "default"
  concurrency = 1000
}
task "t0051" {
  queue = "default"
  concurrency = 1000
}
task "t0052" {
  queue = "default"
  concurrency = 1000
}
task "t0053" {
  queue = "default"
  concurrency = 1000
}
task "t0054" {
  queue = "default"
  concurrency = 1000
}
task "t0055" {
  queue = "default"
  concurrency = 1000
}
task "t0056" {
  queue = "default"
  concurrency = 1000
}
task "t0057" {
  queue = "default"
  concurrency = 1000
}
task "t0058" {
  queue = "default"
  concurrency = 1000
}
task "t0059" {
  queue = "default"
  concurrency = 1000
}
task "t0060" {
  queue = "default"
  concurrency = 1000
}
task "t0061" {
  queue = "default"
  concurrency = 1000
}
task "t0062" {
  queue = "default"
  concurrency = 1000
}
task "t0063" {
  queue = "default"
  concurrency = 1000
}
task "t0064" {
  queue = "default"
  concurrency = 1000
}
task "t0065" {
  queue = "default"
  concurrency = 1000
}
task "t0066" {
  queue = "default"
  concurrency = 1000
}
task "t0067" {
  queue = "default"
  concurrency = 1000
}
task "t0068" {
  queue = "default"
  concurrency = 1000
}
task "t0069" {
  queue = "default"
  concurrency = 1000
}
task "t0070" {
  queue = "default"
  concurrency = 1000
}
task "t0071" {
  queue = "default"
  concurrency = 1000
}
task "t0072" {
  queue = "default"
  concurrency = 1000
}
task "t0073" {
  queue = "default"
  concurrency = 1000
}
task "t0074" {
  queue = "default"
  concurrency = 1000
}
task "t0075" {
  queue = "default"
  concurrency = 1000
}
task "t0076" {
  queue = "default"
  concurrency = 1000
}
task "t0077" {
  queue = "default"
  concurrency = 1000
}
task "t0078" {
  queue = "default"
  concurrency = 1000
}
task "t0079" {
  queue = "default"
  concurrency = 1000
}
task "t0080" {
  queue = "default"
  concurrency = 1000
}
task "t0081" {
  queue = "default"
  concurrency = 1000
}
task "t0082" {
  queue = "default"
  concurrency = 1000
}
task "t0083" {
  queue = "default"
  concurrency = 1000
}
task "t0084" {
  queue = "default"
  concurrency = 1000
}
task "t0085" {
  queue = "default"
  concurrency = 1000
}
task "t0086" {
  queue = "default"
  concurrency = 1000
}
task "t0087" {
  queue = "default"
  concurrency = 1000
}
task "t0088" {
  queue = "default"
  concurrency = 1000
}
task "t0089" {
  queue = "default"
  concurrency = 1000
}
task "t0090" {
  queue = "default"
  concurrency = 1000
}
task "t0091" {
  queue = "default"
  concurrency = 1000
}
task "t0092" {
  queue = "default"
  concurrency = 1000
}
task "t0093" {
  queue = "default"
  concurrency = 1000
}
task "t0094" {
  queue = "default"
  concurrency = 1000
}
task "t0095" {
  queue = "default"
  concurrency = 1000
}
task "t0096" {
  queue = "default"
  concurrency = 1000
}
task "t0097" {
  queue = "default"
  concurrency = 1000
}
task "t0098" {
  queue = "default"
  concurrency = 1000
}
task "t0099" {
  queue = "default"
  concurrency = 1000
}
task "t0100" {
  queue = "default"
  concurrency = 1000
}
task "t0101" {
  queue = "default"
  concurrency = 1000
}
task "t0102" {
  queue = "default"
  concurrency = 1000
}
task "t0103" {
  queue = "default"
  concurrency = 1000
}
task "t0104" {
  queue = "default"
  concurrency = 1000
}
task "t0105" {
  queue = "default"
  concurrency = 1000
}
task "t0106" {
  queue = "default"
  concurrency = 1000
}
task "t0107" {
  queue = "default"
  concurrency = 1000
}
task "t0108" {
  queue = "default"
  concurrency = 1000
}
task "t0109" {
  queue = "default"
  concurrency = 1000
}
task "t0110" {
  queue = "default"
  concurrency = 1000
}
task "t0111" {
  queue = "default"
  concurrency = 1000
}
task "t0112" {
  queue = "default"
  concurrency = 1000
}
task "t0113" {
  queue = "default"
  concurrency = 1000
}
task "t0114" {
  queue = "default"
  concurrency = 1000
}
task "t0115" {
  queue = "default"
  concurrency = 1000
}
task "t0116" {
  queue = "default"
  concurrency = 1000
}
task "t0117" {
  queue = "default"
  concurrency = 1000
}
task "t0118" {
  queue = "default"
  concurrency = 1000
}
task "t0119" {
  queue = "default"
  concurrency = 1000
}
task "t0120" {
  queue = "default"
  concurrency = 1000
}
task "t0121" {
  queue = "default"
  concurrency = 1000
}
task "t0122" {
  queue = "default"
  concurrency = 1000
}
task "t0123" {
  queue = "default"
  concurrency = 1000
}
task "t0124" {
  queue = "default"
  concurrency = 1000
}
task "t0125" {
  queue = "default"
  concurrency = 1000
}
task "t0126" {
  queue = "default"
  concurrency = 1000
}
task "t0127" {
  queue = "default"
  concurrency = 1000
}
task "t0128" {
  queue = "default"
  concurrency = 1000
}
task "t0129" {
  queue = "default"
  concurrency = 1000
}
task "t0130" {
  queue = "default"
  concurrency = 1000
}
task "t0131" {
  queue = "default"
  concurrency = 1000
}
task "t0132" {
  queue = "default"
  concurrency = 1000
}
task "t0133" {
  queue = "default"
  concurrency = 1000
}
task "t0134" {
  queue = "default"
  concurrency = 1000
}
task "t0135" {
  queue = "default"
  concurrency = 1000
}
task "t0136" {
  queue = "default"
  concurrency = 1000
}
task "t0137" {
  queue = "default"
  concurrency = 1000
}
task "t0138" {
  queue = "default"
  concurrency = 1000
}
task "t0139" {
  queue = "default"
  concurrency = 1000
}
task "t0140" {
  queue = "default"
  concurrency = 1000
}
task "t0141" {
  queue = "default"
  concurrency = 1000
}
task "t0142" {
  queue = "default"
  concurrency = 1000
}
task "t0143" {
  queue = "default"
  concurrency = 1000
}
task "t0144" {
  queue = "default"
  concurrency = 1000
}
task "t0145" {
  queue = "default"
  concurrency = 1000
}
task "t0146" {
  queue = "default"
  concurrency = 1000
}
task "t0147" {
  queue = "default"
  concurrency = 1000
}
task "t0148" {
  queue = "default"
  concurrency = 1000
}
task "t0149" {
  queue = "default"
  concurrency = 1000
}
task "t0150" {
  queue = "default"
  concurrency = 1000
}
task "t0151" {
  queue = "default"
  concurrency = 1000
}
task "t0152" {
  queue = "default"
  concurrency = 1000
}
task "t0153" {
  queue = "default"
  concurrency = 1000
}
task "t0154" {
  queue = "default"
  concurrency = 1000
}
task "t0155" {
  queue = "default"
  concurrency = 1000
}
task "t0156" {
  queue = "default"
  concurrency = 1000
}
task "t0157" {
  queue = "default"
  concurrency = 1000
}
task "t0158" {
  queue = "default"
  concurrency = 1000
}
task "t0159" {
  queue = "default"
  concurrency = 1000
}
task "t0160" {
  queue = "default"
  concurrency = 1000
}
task "t0161" {
  queue = "default"
  concurrency = 1000
}
task "t0162" {
  queue = "default"
  concurrency = 1000
}
task "t0163" {
  queue = "default"
  concurrency = 1000
}
task "t0164" {
  queue = "default"
  concurrency = 1000
}
task "t0165" {
  queue = "default"
  concurrency = 1000
}
task "t0166" {
  queue = "default"
  concurrency = 1000
}
task "t0167" {
  queue = "default"
  concurrency = 1000
}
task "t0168" {
  queue = "default"
  concurrency = 1000
}
task "t0169" {
  queue = "default"
  concurrency = 1000
}
task "t0170" {
  queue = "default"
  concurrency = 1000
}
task "t0171" {
  queue = "default"
  concurrency = 1000
}
task "t0172" {
  queue = "default"
  concurrency = 1000
}
task "t0173" {
  queue = "default"
  concurrency = 1000
}
task "t0174" {
  queue = "default"
  concurrency = 1000
}
task "t0175" {
  queue = "default"
  concurrency = 1000
}
task "t0176" {
  queue = "default"
  concurrency = 1000
}
task "t0177" {
  queue = "default"
  concurrency = 1000
}
task "t0178" {
  queue = "default"
  concurrency = 1000
}
task "t0179" {
  queue = "default"
  concurrency = 1000
}
task "t0180" {
  queue = "default"
  concurrency = 1000
}
task "t0181" {
  queue = "default"
  concurrency = 1000
}
task "t0182" {
  queue = "default"
  concurrency = 1000
}
task "t0183" {
  queue = "default"
  concurrency = 1000
}
task "t0184" {
  queue = "default"
  concurrency = 1000
}
task "t0185" {
  queue = "default"
  concurrency = 1000
}
task "t0186" {
  queue = "default"
  concurrency = 1000
}
task "t0187" {
  queue = "default"
  concurrency = 1000
}
task "t0188" {
  queue = "default"
  concurrency = 1000
}
task "t0189" {
  queue = "default"
  concurrency = 1000
}
task "t0190" {
  queue = "default"
  concurrency = 1000
}
task "t0191" {
  queue = "default"
  concurrency = 1000
}
task "t0192" {
  queue = "default"
  concurrency = 1000
}
task "t0193" {
  queue = "default"
  concurrency = 1000
}
task "t0194" {
  queue = "default"
  concurrency = 1000
}
task "t0195" {
  queue = "default"
  concurrency = 1000
}
task "t0196" {
  queue = "default"
  concurrency = 1000
}
task "t0197" {
  queue = "default"
  concurrency = 1000
}
task "t0198" {
  queue = "default"
  concurrency = 1000
}
task "t0199" {
  queue = "default"
  concurrency = 1000
}
task "t0200" {
  queue = "default"
  concurrency = 1000
}
task "t0201" {
  queue = "default"
  concurrency = 1000
}
task "t0202" {
  queue = "default"
  concurrency = 1000
}
task "t0203" {
  queue = "default"
  concurrency = 1000
}
task "t0204" {
  queue = "default"
  concurrency = 1000
}
task "t0205" {
  queue = "default"
  concurrency = 1000
}
task "t0206" {
  queue = "default"
  concurrency = 1000
}
task "t0207" {
  queue = "default"
  concurrency = 1000
}
task "t0208" {
  queue = "default"
  concurrency = 1000
}
task "t0209" {
  queue = "default"
  concurrency = 1000
}
task "t0210" {
  queue = "default"
  concurrency = 1000
}
task "t0211" {
  queue = "default"
  concurrency = 1000
}
task "t0212" {
  queue = "default"
  concurrency = 1000
}
task "t0213" {
  queue = "default"
  concurrency = 1000
}
task "t0214" {
  queue = "default"
  concurrency = 1000
}
task "t0215" {
  queue = "default"
  concurrency = 1000
}
task "t0216" {
  queue = "default"
  concurrency = 1000
}
task "t0217" {
  queue = "default"
  concurrency = 1000
}
task "t0218" {
  queue = "default"
  concurrency = 1000
}
task "t0219" {
  queue = "default"
  concurrency = 1000
}
task "t0220" {
  queue = "default"
  concurrency = 1000
}
task "t0221" {
  queue = "default"
  concurrency = 1000
}
task "t0222" {
  queue = "default"
  concurrency = 1000
}
task "t0223" {
  queue = "default"
  concurrency = 1000
}
task "t0224" {
  queue = "default"
  concurrency = 1000
}
task "t0225" {
  queue = "default"
  concurrency = 1000
}
task "t0226" {
  queue = "default"
  concurrency = 1000
}
task "t0227" {
  queue = "default"
  concurrency = 1000
}
task "t0228" {
  queue = "default"
  concurrency = 1000
}
task "t0229" {
  queue = "default"
  concurrency = 1000
}
task "t0230" {
  queue = "default"
  concurrency = 1000
}
task "t0231" {
  queue = "default"
  concurrency = 1000
}
task "t0232" {
  queue = "default"
  concurrency = 1000
}
task "t0233" {
  queue = "default"
  concurrency = 1000
}
task "t0234" {
  queue = "default"
  concurrency = 1000
}
task "t0235" {
  queue = "default"
  concurrency = 1000
}
task "t0236" {
  queue = "default"
  concurrency = 1000
}
task "t0237" {
  queue = "default"
  concurrency = 1000
}
task "t0238" {
  queue = "default"
  concurrency = 1000
}
task "t0239" {
  queue = "default"
  concurrency = 1000
}
task "t0240" {
  queue = "default"
  concurrency = 1000
}
task "t0241" {
  queue = "default"
  concurrency = 1000
}
task "t0242" {
  queue = "default"
  concurrency = 1000
}
task "t0243" {
  queue = "default"
  concurrency = 1000
}
task "t0244" {
  queue = "default"
  concurrency = 1000
}
task "t0245" {
  queue = "default"
  concurrency = 1000
}
task "t0246" {
  queue = "default"
  concurrency = 1000
}
task "t0247" {
  queue = "default"
  concurrency = 1000
}
task "t0248" {
  queue = "default"
  concurrency = 1000
}
task "t0249" {
  queue = "default"
  concurrency = 1000
}
task "t0250" {
  queue = "default"
  concurrency = 1000
}
task "t0251" {
  queue = "default"
  concurrency = 1000
}
task "t0252" {
  queue = "default"
  concurrency = 1000
}
task "t0253" {
  queue = "default"
  concurrency = 1000
}
task "t0254" {
  queue = "default"
  concurrency = 1000
}
task "t0255" {
  queue = "default"
  concurrency = 1000
}
task "t0256" {
  queue = "default"
  concurrency = 1000
}
task "t0257" {
  queue = "default"
  concurrency = 1000
}
task "t0258" {
  queue = "default"
  concurrency = 1000
}
task "t0259" {
  queue = "default"
  concurrency = 1000
}
task "t0260" {
  queue = "default"
  concurrency = 1000
}
task "t0261" {
  queue = "default"
  concurrency = 1000
}
task "t0262" {
  queue = "default"
  concurrency = 1000
}
task "t0263" {
  queue = "default"
  concurrency = 1000
}
task "t0264" {
  queue = "default"
  concurrency = 1000
}
task "t0265" {
  queue = "default"
  concurrency = 1000
}
task "t0266" {
  queue = "default"
  concurrency = 1000
}
task "t0267" {
  queue = "default"
  concurrency = 1000
}
task "t0268" {
  queue = "default"
  concurrency = 1000
}
task "t0269" {
  queue = "default"
  concurrency = 1000
}
task "t0270" {
  queue = "default"
  concurrency = 1000
}
task "t0271" {
  queue = "default"
  concurrency = 1000
}
task "t0272" {
  queue = "default"
  concurrency = 1000
}
task "t0273" {
  queue = "default"
  concurrency = 1000
}
task "t0274" {
  queue = "default"
  concurrency = 1000
}
task "t0275" {
  queue = "default"
  concurrency = 1000
}
task "t0276" {
  queue = "default"
  concurrency = 1000
}
task "t0277" {
  queue = "default"
  concurrency = 1000
}
task "t0278" {
  queue = "default"
  concurrency = 1000
}
task "t0279" {
  queue = "default"
  concurrency = 1000
}
task "t0280" {
  queue = "default"
  concurrency = 1000
}
task "t0281" {
  queue = "default"
  concurrency = 1000
}
task "t0282" {
  queue = "default"
  concurrency = 1000
}
task "t0283" {
  queue = "default"
  concurrency = 1000
}
task "t0284" {
  queue = "default"
  concurrency = 1000
}
task "t0285" {
  queue = "default"
  concurrency = 1000
}
task "t0286" {
  queue = "default"
  concurrency = 1000
}
task "t0287" {
  queue = "default"
  concurrency = 1000
}
task "t0288" {
  queue = "default"
  concurrency = 1000
}
task "t0289" {
  queue = "default"
  concurrency = 1000
}
task "t0290" {
  queue = "default"
  concurrency = 1000
}
task "t0291" {
  queue = "default"
  concurrency = 1000
}
task "t0292" {
  queue = "default"
  concurrency = 1000
}
task "t0293" {
  queue = "default"
  concurrency = 1000
}
task "t0294" {
  queue = "default"
  concurrency = 1000
}
task "t0295" {
  queue = "default"
  concurrency = 1000
}
task "t0296" {
  queue = "default"
  concurrency = 1000
}
task "t0297" {
  queue = "default"
  concurrency = 1000
}
task "t0298" {
  queue = "default"
  concurrency = 1000
}
task "t0299" {
  queue = "default"
  concurrency = 1000
}
task "t0300" {
  queue = "default"
  concurrency = 1000
}
task "t0301" {
  queue = "default"
  concurrency = 1000
}
task "t0302" {
  queue = "default"
  concurrency = 1000
}
task "t0303" {
  queue = "default"
  concurrency = 1000
}
task "t0304" {
  queue = "default"
  concurrency = 1000
}
task "t0305" {
  queue = "default"
  concurrency = 1000
}
task "t0306" {
  queue = "default"
  concurrency = 1000
}
task "t0307" {
  queue = "default"
  concurrency = 1000
}
task "t0308" {
  queue = "default"
  concurrency = 1000
}
task "t0309" {
  queue = "default"
  concurrency = 1000
}
task "t0310" {
  queue = "default"
  concurrency = 1000
}
task "t0311" {
  queue = "default"
  concurrency = 1000
}
task "t0312" {
  queue = "default"
  concurrency = 1000
}
task "t0313" {
  queue = "default"
  concurrency = 1000
}
task "t0314" {
  queue = "default"
  concurrency = 1000
}
task "t0315" {
  queue = "default"
  concurrency = 1000
}
task "t0316" {
  queue = "default"
  concurrency = 1000
}
task "t0317" {
  queue = "default"
  concurrency = 1000
}
task "t0318" {
  queue = "default"
  concurrency = 1000
}
task "t0319" {
  queue = "default"
  concurrency = 1000
}
task "t0320" {
  queue = "default"
  concurrency = 1000
}
task "t0321" {
  queue = "default"
  concurrency = 1000
}
task "t0322" {
  queue = "default"
  concurrency = 1000
}
task "t0323" {
  queue = "default"
  concurrency = 1000
}
task "t0324" {
  queue = "default"
  concurrency = 1000
}
task "t0325" {
  queue = "default"
  concurrency = 1000
}
task "t0326" {
  queue = "default"
  concurrency = 1000
}
task "t0327" {
  queue = "default"
  concurrency = 1000
}
task "t0328" {
  queue = "default"
  concurrency = 1000
}
task "t0329" {
  queue = "default"
  concurrency = 1000
}
task "t0330" {
  queue = "default"
  concurrency = 1000
}
task "t0331" {
  queue = "default"
  concurrency = 1000
}
task "t0332" {
  queue = "default"
  concurrency = 1000
}
task "t0333" {
  queue = "default"
  concurrency = 1000
}
task "t0334" {
  queue = "default"
  concurrency = 1000
}
task "t0335" {
  queue = "default"
  concurrency = 1000
}
task "t0336" {
  queue = "default"
  concurrency = 1000
}
task "t0337" {
  queue = "default"
  concurrency = 1000
}
task "t0338" {
  queue = "default"
  concurrency = 1000
}
task "t0339" {
  queue = "default"
  concurrency = 1000
}
task "t0340" {
  queue = "default"
  concurrency = 1000
}
task "t0341" {
  queue = "default"
  concurrency = 1000
}
task "t0342" {
  queue = "default"
  concurrency = 1000
}
task "t0343" {
  queue = "default"
  concurrency = 1000
}
task "t0344" {
  queue = "default"
  concurrency = 1000
}
task "t0345" {
  queue = "default"
  concurrency = 1000
}
task "t0346" {
  queue = "default"
  concurrency = 1000
}
task "t0347" {
  queue = "default"
  concurrency = 1000
}
task "t0348" {
  queue = "default"
  concurrency = 1000
}
task "t0349" {
  queue = "default"
  concurrency = 1000
}
task "t0350" {
  queue = "default"
  concurrency = 1000
}
task "t0351" {
  queue = "default"
  concurrency = 1000
}
task "t0352" {
  queue = "default"
  concurrency = 1000
}
task "t0353" {
  queue = "default"
  concurrency = 1000
}
task "t0354" {
  queue = "default"
  concurrency = 1000
}
task "t0355" {
  queue = "default"
  concurrency = 1000
}
task "t0356" {
  queue = "default"
  concurrency = 1000
}
task "t0357" {
  queue = "default"
  concurrency = 1000
}
task "t0358" {
  queue = "default"
  concurrency = 1000
}
task "t0359" {
  queue = "default"
  concurrency = 1000
}
task "t0360" {
  queue = "default"
  concurrency = 1000
}
task "t0361" {
  queue = "default"
  concurrency = 1000
}
task "t0362" {
  queue = "default"
  concurrency = 1000
}
task "t0363" {
  queue = "default"
  concurrency = 1000
}
task "t0364" {
  queue = "default"
  concurrency = 1000
}
task "t0365" {
  queue = "default"
  concurrency = 1000
}
task "t0366" {
  queue = "default"
  concurrency = 1000
}
task "t0367" {
  queue = "default"
  concurrency = 1000
}
task "t0368" {
  queue = "default"
  concurrency = 1000
}
task "t0369" {
  queue = "default"
  concurrency = 1000
}
task "t0370" {
  queue = "default"
  concurrency = 1000
}
task "t0371" {
  queue = "default"
  concurrency = 1000
}
task "t0372" {
  queue = "default"
  concurrency = 1000
}
task "t0373" {
  queue = "default"
  concurrency = 1000
}
task "t0374" {
  queue = "default"
  concurrency = 1000
}
task "t0375" {
  queue = "default"
  concurrency = 1000
}
task "t0376" {
  queue = "default"
  concurrency = 1000
}
task "t0377" {
  queue = "default"
  concurrency = 1000
}
task "t0378" {
  queue = "default"
  concurrency = 1000
}
task "t0379" {
  queue = "default"
  concurrency = 1000
}
task "t0380" {
  queue = "default"
  concurrency = 1000
}
task "t0381" {
  queue = "default"
  concurrency = 1000
}
task "t0382" {
  queue = "default"
  concurrency = 1000
}
task "t0383" {
  queue = "default"
  concurrency = 1000
}
task "t0384" {
  queue = "default"
  concurrency = 1000
}
task "t0385" {
  queue = "default"
  concurrency = 1000
}
task "t0386" {
  queue = "default"
  concurrency = 1000
}
task "t0387" {
  queue = "default"
  concurrency = 1000
}
task "t0388" {
  queue = "default"
  concurrency = 1000
}
task "t0389" {
  queue = "default"
  concurrency = 1000
}
task "t0390" {
  queue = "default"
  concurrency = 1000
}
task "t0391" {
  queue = "default"
  concurrency = 1000
}
task "t0392" {
  queue = "default"
  concurrency = 1000
}
task "t0393" {
  queue = "default"
  concurrency = 1000
}
task "t0394" {
  queue = "default"
  concurrency = 1000
}
task "t0395" {
  queue = "default"
  concurrency = 1000
}
task "t0396" {
  queue = "default"
  concurrency = 1000
}
task "t0397" {
  queue = "default"
  concurrency = 1000
}
task "t0398" {
  queue = "default"
  concurrency = 1000
}
task "t0399" {
  queue = "default"
  concurrency = 1000
}
task "t0400" {
  queue = "default"
  concurrency = 1000
}
task "t0401" {
  queue = "default"
  concurrency = 1000
}
task "t0402" {
  queue = "default"
  concurrency = 1000
}
task "t0403" {
  queue = "default"
  concurrency = 1000
}
task "t0404" {
  queue = "default"
  concurrency = 1000
}
task "t0405" {
  queue = "default"
  concurrency = 1000
}
task "t0406" {
  queue = "default"
  concurrency = 1000
}
task "t0407" {
  queue = "default"
  concurrency = 1000
}
task "t0408" {
  queue = "default"
  concurrency = 1000
}
task "t0409" {
  queue = "default"
  concurrency = 1000
}
task "t0410" {
  queue = "default"
  concurrency = 1000
}
task "t0411" {
  queue = "default"
  concurrency = 1000
}
task "t0412" {
  queue = "default"
  concurrency = 1000
}
task "t0413" {
  queue = "default"
  concurrency = 1000
}
task "t0414" {
  queue = "default"
  concurrency = 1000
}
task "t0415" {
  queue = "default"
  concurrency = 1000
}
task "t0416" {
  queue = "default"
  concurrency = 1000
}
task "t0417" {
  queue = "default"
  concurrency = 1000
}
task "t0418" {
  queue = "default"
  concurrency = 1000
}
task "t0419" {
  queue = "default"
  concurrency = 1000
}
task "t0420" {
  queue = "default"
  concurrency = 1000
}
task "t0421" {
  queue = "default"
  concurrency = 1000
}
task "t0422" {
  queue = "default"
  concurrency = 1000
}
task "t0423" {
  queue = "default"
  concurrency = 1000
}
task "t0424" {
  queue = "default"
  concurrency = 1000
}
task "t0425" {
  queue = "default"
  concurrency = 1000
}
task "t0426" {
  queue = "default"
  concurrency = 1000
}
task "t0427" {
  queue = "default"
  concurrency = 1000
}
task "t0428" {
  queue = "default"
  concurrency = 1000
}
task "t0429" {
  queue = "default"
  concurrency = 1000
}
task "t0430" {
  queue = "default"
  concurrency = 1000
}
task "t0431" {
  queue = "default"
  concurrency = 1000
}
task "t0432" {
  queue = "default"
  concurrency = 1000
}
task "t0433" {
  queue = "default"
  concurrency = 1000
}
task "t0434" {
  queue = "default"
  concurrency = 1000
}
task "t0435" {
  queue = "default"
  concurrency = 1000
}
task "t0436" {
  queue = "default"
  concurrency = 1000
}
task "t0437" {
  queue = "default"
  concurrency = 1000
}
task "t0438" {
  queue = "default"
  concurrency = 1000
}
task "t0439" {
  queue = "default"
  concurrency = 1000
}
task "t0440" {
  queue = "default"
  concurrency = 1000
}
task "t0441" {
  queue = "default"
  concurrency = 1000
}
task "t0442" {
  queue = "default"
  concurrency = 1000
}
task "t0443" {
  queue = "default"
  concurrency = 1000
}
task "t0444" {
  queue = "default"
  concurrency = 1000
}
task "t0445" {
  queue = "default"
  concurrency = 1000
}
task "t0446" {
  queue = "default"
  concurrency = 1000
}
task "t0447" {
  queue = "default"
  concurrency = 1000
}
task "t0448" {
  queue = "default"
  concurrency = 1000
}
task "t0449" {
  queue = "default"
  concurrency = 1000
}
task "t0450" {
  queue = "default"
  concurrency = 1000
}
task "t0451" {
  queue = "default"
  concurrency = 1000
}
task "t0452" {
  queue = "default"
  concurrency = 1000
}
task "t0453" {
  queue = "default"
  concurrency = 1000
}
task "t0454" {
  queue = "default"
  concurrency = 1000
}
task "t0455" {
  queue = "default"
  concurrency = 1000
}
task "t0456" {
  queue = "default"
  concurrency = 1000
}
task "t0457" {
  queue = "default"
  concurrency = 1000
}
task "t0458" {
  queue = "default"
  concurrency = 1000
}
task "t0459" {
  queue = "default"
  concurrency = 1000
}
task "t0460" {
  queue = "default"
  concurrency = 1000
}
task "t0461" {
  queue = "default"
  concurrency = 1000
}
task "t0462" {
  queue = "default"
  concurrency = 1000
}
task "t0463" {
  queue = "default"
  concurrency = 1000
}
task "t0464" {
  queue = "default"
  concurrency = 1000
}
task "t0465" {
  queue = "default"
  concurrency = 1000
}
task "t0466" {
  queue = "default"
  concurrency = 1000
}
task "t0467" {
  queue = "default"
  concurrency = 1000
}
task "t0468" {
  queue = "default"
  concurrency = 1000
}
task "t0469" {
  queue = "default"
  concurrency = 1000
}
task "t0470" {
  queue = "default"
  concurrency = 1000
}
task "t0471" {
  queue = "default"
  concurrency = 1000
}
task "t0472" {
  queue = "default"
  concurrency = 1000
}
task "t0473" {
  queue = "default"
  concurrency = 1000
}
task "t0474" {
  queue = "default"
  concurrency = 1000
}
task "t0475" {
  queue = "default"
  concurrency = 1000
}
task "t0476" {
  queue = "default"
  concurrency = 1000
}
task "t0477" {
  queue = "default"
  concurrency = 1000
}
task "t0478" {
  queue = "default"
  concurrency = 1000
}
task "t0479" {
  queue = "default"
  concurrency = 1000
}
task "t0480" {
  queue = "default"
  concurrency = 1000
}
task "t0481" {
  queue = "default"
  concurrency = 1000
}
task "t0482" {
  queue = "default"
  concurrency = 1000
}
task "t0483" {
  queue = "default"
  concurrency = 1000
}
task "t0484" {
  queue = "default"
  concurrency = 1000
}
task "t0485" {
  queue = "default"
  concurrency = 1000
}
task "t0486" {
  queue = "default"
  concurrency = 1000
}
task "t0487" {
  queue = "default"
  concurrency = 1000
}
task "t0488" {
  queue = "default"
  concurrency = 1000
}
task "t0489" {
  queue = "default"
  concurrency = 1000
}
task "t0490" {
  queue = "default"
  concurrency = 1000
}
task "t0491" {
  queue = "default"
  concurrency = 1000
}
task "t0492" {
  queue = "default"
  concurrency = 1000
}
task "t0493" {
  queue = "default"
  concurrency = 1000
}
task "t0494" {
  queue = "default"
  concurrency = 1000
}
task "t0495" {
  queue = "default"
  concurrency = 1000
}
task "t0496" {
  queue = "default"
  concurrency = 1000
}
task "t0497" {
  queue = "default"
  concurrency = 1000
}
task "t0498" {
  queue = "default"
  concurrency = 1000
}
task "t0499" {
  queue = "default"
  concurrency = 1000
}
task "t0500" {
  queue = "default"
  concurrency = 1000
}
task "t0501" {
  queue = "default"
  concurrency = 1000
}
task "t0502" {
  queue = "default"
  concurrency = 1000
}
task "t0503" {
  queue = "default"
  concurrency = 1000
}
task "t0504" {
  queue = "default"
  concurrency = 1000
}
task "t0505" {
  queue = "default"
  concurrency = 1000
}
task "t0506" {
  queue = "default"
  concurrency = 1000
}
task "t0507" {
  queue = "default"
  concurrency = 1000
}
task "t0508" {
  queue = "default"
  concurrency = 1000
}
task "t0509" {
  queue = "default"
  concurrency = 1000
}
task "t0510" {
  queue = "default"
  concurrency = 1000
}
task "t0511" {
  queue = "default"
  concurrency = 1000
}
task "t0512" {
  queue = "default"
  concurrency = 1000
}
task "t0513" {
  queue = "default"
  concurrency = 1000
}
task "t0514" {
  queue = "default"
  concurrency = 1000
}
task "t0515" {
  queue = "default"
  concurrency = 1000
}
task "t0516" {
  queue = "default"
  concurrency = 1000
}
task "t0517" {
  queue = "default"
  concurrency = 1000
}
task "t0518" {
  queue = "default"
  concurrency = 1000
}
task "t0519" {
  queue = "default"
  concurrency = 1000
}
task "t0520" {
  queue = "default"
  concurrency = 1000
}
task "t0521" {
  queue = "default"
  concurrency = 1000
}
task "t0522" {
  queue = "default"
  concurrency = 1000
}
task "t0523" {
  queue = "default"
  concurrency = 1000
}
task "t0524" {
  queue = "default"
  concurrency = 1000
}
task "t0525" {
  queue = "default"
  concurrency = 1000
}
task "t0526" {
  queue = "default"
  concurrency = 1000
}
task "t0527" {
  queue = "default"
  concurrency = 1000
}
task "t0528" {
  queue = "default"
  concurrency = 1000
}
task "t0529" {
  queue = "default"
  concurrency = 1000
}
task "t0530" {
  queue = "default"
  concurrency = 1000
}
task "t0531" {
  queue = "default"
  concurrency = 1000
}
task "t0532" {
  queue = "default"
  concurrency = 1000
}
task "t0533" {
  queue = "default"
  concurrency = 1000
}
task "t0534" {
  queue = "default"
  concurrency = 1000
}
task "t0535" {
  queue = "default"
  concurrency = 1000
}
task "t0536" {
  queue = "default"
  concurrency = 1000
}
task "t0537" {
  queue = "default"
  concurrency = 1000
}
task "t0538" {
  queue = "default"
  concurrency = 1000
}
task "t0539" {
  queue = "default"
  concurrency = 1000
}
task "t0540" {
  queue = "default"
  concurrency = 1000
}
task "t0541" {
  queue = "default"
  concurrency = 1000
}
task "t0542" {
  queue = "default"
  concurrency = 1000
}
task "t0543" {
  queue = "default"
  concurrency = 1000
}
task "t0544" {
  queue = "default"
  concurrency = 1000
}
task "t0545" {
  queue = "default"
  concurrency = 1000
}
task "t0546" {
  queue = "default"
  concurrency = 1000
}
task "t0547" {
  queue = "default"
  concurrency = 1000
}
task "t0548" {
  queue = "default"
  concurrency = 1000
}
task "t0549" {
  queue = "default"
  concurrency = 1000
}
task "t0550" {
  queue = "default"
  concurrency = 1000
}
task "t0551" {
  queue = "default"
  concurrency = 1000
}
task "t0552" {
  queue = "default"
  concurrency = 1000
}
task "t0553" {
  queue = "default"
  concurrency = 1000
}
task "t0554" {
  queue = "default"
  concurrency = 1000
}
task "t0555" {
  queue = "default"
  concurrency = 1000
}
task "t0556" {
  queue = "default"
  concurrency = 1000
}
task "t0557" {
  queue = "default"
  concurrency = 1000
}
task "t0558" {
  queue = "default"
  concurrency = 1000
}
task "t0559" {
  queue = "default"
  concurrency = 1000
}
task "t0560" {
  queue = "default"
  concurrency = 1000
}
task "t0561" {
  queue = "default"
  concurrency = 1000
}
task "t0562" {
  queue = "default"
  concurrency = 1000
}
task "t0563" {
  queue = "default"
  concurrency = 1000
}
task "t0564" {
  queue = "default"
  concurrency = 1000
}
task "t0565" {
  queue = "default"
  concurrency = 1000
}
task "t0566" {
  queue = "default"
  concurrency = 1000
}
task "t0567" {
  queue = "default"
  concurrency = 1000
}
task "t0568" {
  queue = "default"
  concurrency = 1000
}
task "t0569" {
  queue = "default"
  concurrency = 1000
}
task "t0570" {
  queue = "default"
  concurrency = 1000
}
task "t0571" {
  queue = "default"
  concurrency = 1000
}
task "t0572" {
  queue = "default"
  concurrency = 1000
}
task "t0573" {
  queue = "default"
  concurrency = 1000
}
task "t0574" {
  queue = "default"
  concurrency = 1000
}
task "t0575" {
  queue = "default"
  concurrency = 1000
}
task "t0576" {
  queue = "default"
  concurrency = 1000
}
task "t0577" {
  queue = "default"
  concurrency = 1000
}
task "t0578" {
  queue = "default"
  concurrency = 1000
}
task "t0579" {
  queue = "default"
  concurrency = 1000
}
task "t0580" {
  queue = "default"
  concurrency = 1000
}
task "t0581" {
  queue = "default"
  concurrency = 1000
}
task "t0582" {
  queue = "default"
  concurrency = 1000
}
task "t0583" {
  queue = "default"
  concurrency = 1000
}
task "t0584" {
  queue = "default"
  concurrency = 1000
}
task "t0585" {
  queue = "default"
  concurrency = 1000
}
task "t0586" {
  queue = "default"
  concurrency = 1000
}
task "t0587" {
  queue = "default"
  concurrency = 1000
}
task "t0588" {
  queue = "default"
  concurrency = 1000
}
task "t0589" {
  queue = "default"
  concurrency = 1000
}
task "t0590" {
  queue = "default"
  concurrency = 1000
}
task "t0591" {
  queue = "default"
  concurrency = 1000
}
task "t0592" {
  queue = "default"
  concurrency = 1000
}
task "t0593" {
  queue = "default"
  concurrency = 1000
}
task "t0594" {
  queue = "default"
  concurrency = 1000
}
task "t0595" {
  queue = "default"
  concurrency = 1000
}
task "t0596" {
  queue = "default"
  concurrency = 1000
}
task "t0597" {
  queue = "default"
  concurrency = 1000
}
task "t0598" {
  queue = "default"
  concurrency = 1000
}
task "t0599" {
  queue = "default"
  concurrency = 1000
}
task "t0600" {
  queue = "default"
  concurrency = 1000
}
task "t0601" {
  queue = "default"
  concurrency = 1000
}
task "t0602" {
  queue = "default"
  concurrency = 1000
}
task "t0603" {
  queue = "default"
  concurrency = 1000
}
task "t0604" {
  queue = "default"
  concurrency = 1000
}
task "t0605" {
  queue = "default"
  concurrency = 1000
}
task "t0606" {
  queue = "default"
  concurrency = 1000
}
task "t0607" {
  queue = "default"
  concurrency = 1000
}
task "t0608" {
  queue = "default"
  concurrency = 1000
}
task "t0609" {
  queue = "default"
  concurrency = 1000
}
task "t0610" {
  queue = "default"
  concurrency = 1000
}
task "t0611" {
  queue = "default"
  concurrency = 1000
}
task "t0612" {
  queue = "default"
  concurrency = 1000
}
task "t0613" {
  queue = "default"
  concurrency = 1000
}
task "t0614" {
  queue = "default"
  concurrency = 1000
}
task "t0615" {
  queue = "default"
  concurrency = 1000
}
task "t0616" {
  queue = "default"
  concurrency = 1000
}
task "t0617" {
  queue = "default"
  concurrency = 1000
}
task "t0618" {
  queue = "default"
  concurrency = 1000
}
task "t0619" {
  queue = "default"
  concurrency = 1000
}
task "t0620" {
  queue = "default"
  concurrency = 1000
}
task "t0621" {
  queue = "default"
  concurrency = 1000
}
task "t0622" {
  queue = "default"
  concurrency = 1000
}
task "t0623" {
  queue = "default"
  concurrency = 1000
}
task "t0624" {
  queue = "default"
  concurrency = 1000
}
task "t0625" {
  queue = "default"
  concurrency = 1000
}
task "t0626" {
  queue = "default"
  concurrency = 1000
}
task "t0627" {
  queue = "default"
  concurrency = 1000
}
task "t0628" {
  queue = "default"
  concurrency = 1000
}
task "t0629" {
  queue = "default"
  concurrency = 1000
}
task "t0630" {
  queue = "default"
  concurrency = 1000
}
task "t0631" {
  queue = "default"
  concurrency = 1000
}
task "t0632" {
  queue = "default"
  concurrency = 1000
}
task "t0633" {
  queue = "default"
  concurrency = 1000
}
task "t0634" {
  queue = "default"
  concurrency = 1000
}
task "t0635" {
  queue = "default"
  concurrency = 1000
}
task "t0636" {
  queue = "default"
  concurrency = 1000
}
task "t0637" {
  queue = "default"
  concurrency = 1000
}
task "t0638" {
  queue = "default"
  concurrency = 1000
}
task "t0639" {
  queue = "default"
  concurrency = 1000
}
task "t0640" {
  queue = "default"
  concurrency = 1000
}
task "t0641" {
  queue = "default"
  concurrency = 1000
}
task "t0642" {
  queue = "default"
  concurrency = 1000
}
task "t0643" {
  queue = "default"
  concurrency = 1000
}
task "t0644" {
  queue = "default"
  concurrency = 1000
}
task "t0645" {
  queue = "default"
  concurrency = 1000
}
task "t0646" {
  queue = "default"
  concurrency = 1000
}
task "t0647" {
  queue = "default"
  concurrency = 1000
}
task "t0648" {
  queue = "default"
  concurrency = 1000
}
task "t0649" {
  queue = "default"
  concurrency = 1000
}
task "t0650" {
  queue = "default"
  concurrency = 1000
}
task "t0651" {
  queue = "default"
  concurrency = 1000
}
task "t0652" {
  queue = "default"
  concurrency = 1000
}
task "t0653" {
  queue = "default"
  concurrency = 1000
}
task "t0654" {
  queue = "default"
  concurrency = 1000
}
task "t0655" {
  queue = "default"
  concurrency = 1000
}
task "t0656" {
  queue = "default"
  concurrency = 1000
}
task "t0657" {
  queue = "default"
  concurrency = 1000
}
task "t0658" {
  queue = "default"
  concurrency = 1000
}
task "t0659" {
  queue = "default"
  concurrency = 1000
}
task "t0660" {
  queue = "default"
  concurrency = 1000
}
task "t0661" {
  queue = "default"
  concurrency = 1000
}
task "t0662" {
  queue = "default"
  concurrency = 1000
}
task "t0663" {
  queue = "default"
  concurrency = 1000
}
task "t0664" {
  queue = "default"
  concurrency = 1000
}
task "t0665" {
  queue = "default"
  concurrency = 1000
}
task "t0666" {
  queue = "default"
  concurrency = 1000
}
task "t0667" {
  queue = "default"
  concurrency = 1000
}
task "t0668" {
  queue = "default"
  concurrency = 1000
}
task "t0669" {
  queue = "default"
  concurrency = 1000
}
task "t0670" {
  queue = "default"
  concurrency = 1000
}
task "t0671" {
  queue = "default"
  concurrency = 1000
}
task "t0672" {
  queue = "default"
  concurrency = 1000
}
task "t0673" {
  queue = "default"
  concurrency = 1000
}
task "t0674" {
  queue = "default"
  concurrency = 1000
}
task "t0675" {
  queue = "default"
  concurrency = 1000
}
task "t0676" {
  queue = "default"
  concurrency = 1000
}
task "t0677" {
  queue = "default"
  concurrency = 1000
}
task "t0678" {
  queue = "default"
  concurrency = 1000
}
task "t0679" {
  queue = "default"
  concurrency = 1000
}
task "t0680" {
  queue = "default"
  concurrency = 1000
}
task "t0681" {
  queue = "default"
  concurrency = 1000
}
task "t0682" {
  queue = "default"
  concurrency = 1000
}
task "t0683" {
  queue = "default"
  concurrency = 1000
}
task "t0684" {
  queue = "default"
  concurrency = 1000
}
task "t0685" {
  queue = "default"
  concurrency = 1000
}
task "t0686" {
  queue = "default"
  concurrency = 1000
}
task "t0687" {
  queue = "default"
  concurrency = 1000
}
task "t0688" {
  queue = "default"
  concurrency = 1000
}
task "t0689" {
  queue = "default"
  concurrency = 1000
}
task "t0690" {
  queue = "default"
  concurrency = 1000
}
task "t0691" {
  queue = "default"
  concurrency = 1000
}
task "t0692" {
  queue = "default"
  concurrency = 1000
}
task "t0693" {
  queue = "default"
  concurrency = 1000
}
task "t0694" {
  queue = "default"
  concurrency = 1000
}
task "t0695" {
  queue = "default"
  concurrency = 1000
}
task "t0696" {
  queue = "default"
  concurrency = 1000
}
task "t0697" {
  queue = "default"
  concurrency = 1000
}
task "t0698" {
  queue = "default"
  concurrency = 1000
}
task "t0699" {
  queue = "default"
  concurrency = 1000
}
task "t0700" {
  queue = "default"
  concurrency = 1000
}
task "t0701" {
  queue = "default"
  concurrency = 1000
}
task "t0702" {
  queue = "default"
  concurrency = 1000
}
task "t0703" {
  queue = "default"
  concurrency = 1000
}
task "t0704" {
  queue = "default"
  concurrency = 1000
}
task "t0705" {
  queue = "default"
  concurrency = 1000
}
task "t0706" {
  queue = "default"
  concurrency = 1000
}
task "t0707" {
  queue = "default"
  concurrency = 1000
}
task "t0708" {
  queue = "default"
  concurrency = 1000
}
task "t0709" {
  queue = "default"
  concurrency = 1000
}
task "t0710" {
  queue = "default"
  concurrency = 1000
}
task "t0711" {
  queue = "default"
  concurrency = 1000
}
task "t0712" {
  queue = "default"
  concurrency = 1000
}
task "t0713" {
  queue = "default"
  concurrency = 1000
}
task "t0714" {
  queue = "default"
  concurrency = 1000
}
task "t0715" {
  queue = "default"
  concurrency = 1000
}
task "t0716" {
  queue = "default"
  concurrency = 1000
}
task "t0717" {
  queue = "default"
  concurrency = 1000
}
task "t0718" {
  queue = "default"
  concurrency = 1000
}
task "t0719" {
  queue = "default"
  concurrency = 1000
}
task "t0720" {
  queue = "default"
  concurrency = 1000
}
task "t0721" {
  queue = "default"
  concurrency = 1000
}
task "t0722" {
  queue = "default"
  concurrency = 1000
}
task "t0723" {
  queue = "default"
  concurrency = 1000
}
task "t0724" {
  queue = "default"
  concurrency = 1000
}
task "t0725" {
  queue = "default"
  concurrency = 1000
}
task "t0726" {
  queue = "default"
  concurrency = 1000
}
task "t0727" {
  queue = "default"
  concurrency = 1000
}
task "t0728" {
  queue = "default"
  concurrency = 1000
}
task "t0729" {
  queue = "default"
  concurrency = 1000
}
task "t0730" {
  queue = "default"
  concurrency = 1000
}
task "t0731" {
  queue = "default"
  concurrency = 1000
}
task "t0732" {
  queue = "default"
  concurrency = 1000
}
task "t0733" {
  queue = "default"
  concurrency = 1000
}
task "t0734" {
  queue = "default"
  concurrency = 1000
}
task "t0735" {
  queue = "default"
  concurrency = 1000
}
task "t0736" {
  queue = "default"
  concurrency = 1000
}
task "t0737" {
  queue = "default"
  concurrency = 1000
}
task "t0738" {
  queue = "default"
  concurrency = 1000
}
task "t0739" {
  queue = "default"
  concurrency = 1000
}
task "t0740" {
  queue = "default"
  concurrency = 1000
}
task "t0741" {
  queue = "default"
  concurrency = 1000
}
task "t0742" {
  queue = "default"
  concurrency = 1000
}
task "t0743" {
  queue = "default"
  concurrency = 1000
}
task "t0744" {
  queue = "default"
  concurrency = 1000
}
task "t0745" {
  queue = "default"
  concurrency = 1000
}
task "t0746" {
  queue = "default"
  concurrency = 1000
}
task "t0747" {
  queue = "default"
  concurrency = 1000
}
task "t0748" {
  queue = "default"
  concurrency = 1000
}
task "t0749" {
  queue = "default"
  concurrency = 1000
}
task "t0750" {
  queue = "default"
  concurrency = 1000
}
task "t0751" {
  queue = "default"
  concurrency = 1000
}
task "t0752" {
  queue = "default"
  concurrency = 1000
}
task "t0753" {
  queue = "default"
  concurrency = 1000
}
task "t0754" {
  queue = "default"
  concurrency = 1000
}
task "t0755" {
  queue = "default"
  concurrency = 1000
}
task "t0756" {
  queue = "default"
  concurrency = 1000
}
task "t0757" {
  queue = "default"
  concurrency = 1000
}
task "t0758" {
  queue = "default"
  concurrency = 1000
}
task "t0759" {
  queue = "default"
  concurrency = 1000
}
task "t0760" {
  queue = "default"
  concurrency = 1000
}
task "t0761" {
  queue = "default"
  concurrency = 1000
}
task "t0762" {
  queue = "default"
  concurrency = 1000
}
task "t0763" {
  queue = "default"
  concurrency = 1000
}
task "t0764" {
  queue = "default"
  concurrency = 1000
}
task "t0765" {
  queue = "default"
  concurrency = 1000
}
task "t0766" {
  queue = "default"
  concurrency = 1000
}
task "t0767" {
  queue = "default"
  concurrency = 1000
}
task "t0768" {
  queue = "default"
  concurrency = 1000
}
task "t0769" {
  queue = "default"
  concurrency = 1000
}
task "t0770" {
  queue = "default"
  concurrency = 1000
}
task "t0771" {
  queue = "default"
  concurrency = 1000
}
task "t0772" {
  queue = "default"
  concurrency = 1000
}
task "t0773" {
  queue = "default"
  concurrency = 1000
}
task "t0774" {
  queue = "default"
  concurrency = 1000
}
task "t0775" {
  queue = "default"
  concurrency = 1000
}
task "t0776" {
  queue = "default"
  concurrency = 1000
}
task "t0777" {
  queue = "default"
  concurrency = 1000
}
task "t0778" {
  queue = "default"
  concurrency = 1000
}
task "t0779" {
  queue = "default"
  concurrency = 1000
}
task "t0780" {
  queue = "default"
  concurrency = 1000
}
task "t0781" {
  queue = "default"
  concurrency = 1000
}
task "t0782" {
  queue = "default"
  concurrency = 1000
}
task "t0783" {
  queue = "default"
  concurrency = 1000
}
task "t0784" {
  queue = "default"
  concurrency = 1000
}
task "t0785" {
  queue = "default"
  concurrency = 1000
}
task "t0786" {
  queue = "default"
  concurrency = 1000
}
task "t0787" {
  queue = "default"
  concurrency = 1000
}
task "t0788" {
  queue = "default"
  concurrency = 1000
}
task "t0789" {
  queue = "default"
  concurrency = 1000
}
task "t0790" {
  queue = "default"
  concurrency = 1000
}
task "t0791" {
  queue = "default"
  concurrency = 1000
}
task "t0792" {
  queue = "default"
  concurrency = 1000
}
task "t0793" {
  queue = "default"
  concurrency = 1000
}
task "t0794" {
  queue = "default"
  concurrency = 1000
}
task "t0795" {
  queue = "default"
  concurrency = 1000
}
task "t0796" {
  queue = "default"
  concurrency = 1000
}
task "t0797" {
  queue = "default"
  concurrency = 1000
}
task "t0798" {
  queue = "default"
  concurrency = 1000
}
task "t0799" {
  queue = "default"
  concurrency = 1000
}
task "t0800" {
  queue = "default"
  concurrency = 1000
}
task "t0801" {
  queue = "default"
  concurrency = 1000
}
task "t0802" {
  queue = "default"
  concurrency = 1000
}
task "t0803" {
  queue = "default"
  concurrency = 1000
}
task "t0804" {
  queue = "default"
  concurrency = 1000
}
task "t0805" {
  queue = "default"
  concurrency = 1000
}
task "t0806" {
  queue = "default"
  concurrency = 1000
}
task "t0807" {
  queue = "default"
  concurrency = 1000
}
task "t0808" {
  queue = "default"
  concurrency = 1000
}
task "t0809" {
  queue = "default"
  concurrency = 1000
}
task "t0810" {
  queue = "default"
  concurrency = 1000
}
task "t0811" {
  queue = "default"
  concurrency = 1000
}
task "t0812" {
  queue = "default"
  concurrency = 1000
}
task "t0813" {
  queue = "default"
  concurrency = 1000
}
task "t0814" {
  queue = "default"
  concurrency = 1000
}
task "t0815" {
  queue = "default"
  concurrency = 1000
}
task "t0816" {
  queue = "default"
  concurrency = 1000
}
task "t0817" {
  queue = "default"
  concurrency = 1000
}
task "t0818" {
  queue = "default"
  concurrency = 1000
}
task "t0819" {
  queue = "default"
  concurrency = 1000
}
task "t0820" {
  queue = "default"
  concurrency = 1000
}
task "t0821" {
  queue = "default"
  concurrency = 1000
}
task "t0822" {
  queue = "default"
  concurrency = 1000
}
task "t0823" {
  queue = "default"
  concurrency = 1000
}
task "t0824" {
  queue = "default"
  concurrency = 1000
}
task "t0825" {
  queue = "default"
  concurrency = 1000
}
task "t0826" {
  queue = "default"
  concurrency = 1000
}
task "t0827" {
  queue = "default"
  concurrency = 1000
}
task "t0828" {
  queue = "default"
  concurrency = 1000
}
task "t0829" {
  queue = "default"
  concurrency = 1000
}
task "t0830" {
  queue = "default"
  concurrency = 1000
}
task "t0831" {
  queue = "default"
  concurrency = 1000
}
task "t0832" {
  queue = "default"
  concurrency = 1000
}
task "t0833" {
  queue = "default"
  concurrency = 1000
}
task "t0834" {
  queue = "default"
  concurrency = 1000
}
task "t0835" {
  queue = "default"
  concurrency = 1000
}
task "t0836" {
  queue = "default"
  concurrency = 1000
}
task "t0837" {
  queue = "default"
  concurrency = 1000
}
task "t0838" {
  queue = "default"
  concurrency = 1000
}
task "t0839" {
  queue = "default"
  concurrency = 1000
}
task "t0840" {
  queue = "default"
  concurrency = 1000
}
task "t0841" {
  queue = "default"
  concurrency = 1000
}
task "t0842" {
  queue = "default"
  concurrency = 1000
}
task "t0843" {
  queue = "default"
  concurrency = 1000
}
task "t0844" {
  queue = "default"
  concurrency = 1000
}
task "t0845" {
  queue = "default"
  concurrency = 1000
}
task "t0846" {
  queue = "default"
  concurrency = 1000
}
task "t0847" {
  queue = "default"
  concurrency = 1000
}
task "t0848" {
  queue = "default"
  concurrency = 1000
}
task "t0849" {
  queue = "default"
  concurrency = 1000
}
task "t0850" {
  queue = "default"
  concurrency = 1000
}
task "t0851" {
  queue = "default"
  concurrency = 1000
}
task "t0852" {
  queue = "default"
  concurrency = 1000
}
task "t0853" {
  queue = "default"
  concurrency = 1000
}
task "t0854" {
  queue = "default"
  concurrency = 1000
}
task "t0855" {
  queue = "default"
  concurrency = 1000
}
task "t0856" {
  queue = "default"
  concurrency = 1000
}
task "t0857" {
  queue = "default"
  concurrency = 1000
}
task "t0858" {
  queue = "default"
  concurrency = 1000
}
task "t0859" {
  queue = "default"
  concurrency = 1000
}
task "t0860" {
  queue = "default"
  concurrency = 1000
}
task "t0861" {
  queue = "default"
  concurrency = 1000
}
task "t0862" {
  queue = "default"
  concurrency = 1000
}
task "t0863" {
  queue = "default"
  concurrency = 1000
}
task "t0864" {
  queue = "default"
  concurrency = 1000
}
task "t0865" {
  queue = "default"
  concurrency = 1000
}
task "t0866" {
  queue = "default"
  concurrency = 1000
}
task "t0867" {
  queue = "default"
  concurrency = 1000
}
task "t0868" {
  queue = "default"
  concurrency = 1000
}
task "t0869" {
  queue = "default"
  concurrency = 1000
}
task "t0870" {
  queue = "default"
  concurrency = 1000
}
task "t0871" {
  queue = "default"
  concurrency = 1000
}
task "t0872" {
  queue = "default"
  concurrency = 1000
}
task "t0873" {
  queue = "default"
  concurrency = 1000
}
task "t0874" {
  queue = "default"
  concurrency = 1000
}
task "t0875" {
  queue = "default"
  concurrency = 1000
}
task "t0876" {
  queue = "default"
  concurrency = 1000
}
task "t0877" {
  queue = "default"
  concurrency = 1000
}
task "t0878" {
  queue = "default"
  concurrency = 1000
}
task "t0879" {
  queue = "default"
  concurrency = 1000
}
task "t0880" {
  queue = "default"
  concurrency = 1000
}
task "t0881" {
  queue = "default"
  concurrency = 1000
}
task "t0882" {
  queue = "default"
  concurrency = 1000
}
task "t0883" {
  queue = "default"
  concurrency = 1000
}
task "t0884" {
  queue = "default"
  concurrency = 1000
}
task "t0885" {
  queue = "default"
  concurrency = 1000
}
task "t0886" {
  queue = "default"
  concurrency = 1000
}
task "t0887" {
  queue = "default"
  concurrency = 1000
}
task "t0888" {
  queue = "default"
  concurrency = 1000
}
task "t0889" {
  queue = "default"
  concurrency = 1000
}
task "t0890" {
  queue = "default"
  concurrency = 1000
}
task "t0891" {
  queue = "default"
  concurrency = 1000
}
task "t0892" {
  queue = "default"
  concurrency = 1000
}
task "t0893" {
  queue = "default"
  concurrency = 1000
}
task "t0894" {
  queue = "default"
  concurrency = 1000
}
task "t0895" {
  queue = "default"
  concurrency = 1000
}
task "t0896" {
  queue = "default"
  concurrency = 1000
}
task "t0897" {
  queue = "default"
  concurrency = 1000
}
task "t0898" {
  queue = "default"
  concurrency = 1000
}
task "t0899" {
  queue = "default"
  concurrency = 1000
}
task "t0900" {
  queue = "default"
  concurrency = 1000
}
task "t0901" {
  queue = "default"
  concurrency = 1000
}
task "t0902" {
  queue = "default"
  concurrency = 1000
}
task "t0903" {
  queue = "default"
  concurrency = 1000
}
task "t0904" {
  queue = "default"
  concurrency = 1000
}
task "t0905" {
  queue = "default"
  concurrency = 1000
}
task "t0906" {
  queue = "default"
  concurrency = 1000
}
task "t0907" {
  queue = "default"
  concurrency = 1000
}
task "t0908" {
  queue = "default"
  concurrency = 1000
}
task "t0909" {
  queue = "default"
  concurrency = 1000
}
task "t0910" {
  queue = "default"
  concurrency = 1000
}
task "t0911" {
  queue = "default"
  concurrency = 1000
}
task "t0912" {
  queue = "default"
  concurrency = 1000
}
task "t0913" {
  queue = "default"
  concurrency = 1000
}
task "t0914" {
  queue = "default"
  concurrency = 1000
}
task "t0915" {
  queue = "default"
  concurrency = 1000
}
task "t0916" {
  queue = "default"
  concurrency = 1000
}
task "t0917" {
  queue = "default"
  concurrency = 1000
}
task "t0918" {
  queue = "default"
  concurrency = 1000
}
task "t0919" {
  queue = "default"
  concurrency = 1000
}
task "t0920" {
  queue = "default"
  concurrency = 1000
}
task "t0921" {
  queue = "default"
  concurrency = 1000
}
task "t0922" {
  queue = "default"
  concurrency = 1000
}
task "t0923" {
  queue = "default"
  concurrency = 1000
}
task "t0924" {
  queue = "default"
  concurrency = 1000
}
task "t0925" {
  queue = "default"
  concurrency = 1000
}
task "t0926" {
  queue = "default"
  concurrency = 1000
}
task "t0927" {
  queue = "default"
  concurrency = 1000
}
task "t0928" {
  queue = "default"
  concurrency = 1000
}
task "t0929" {
  queue = "default"
  concurrency = 1000
}
task "t0930" {
  queue = "default"
  concurrency = 1000
}
task "t0931" {
  queue = "default"
  concurrency = 1000
}
task "t0932" {
  queue = "default"
  concurrency = 1000
}
task "t0933" {
  queue = "default"
  concurrency = 1000
}
task "t0934" {
  queue = "default"
  concurrency = 1000
}
task "t0935" {
  queue = "default"
  concurrency = 1000
}
task "t0936" {
  queue = "default"
  concurrency = 1000
}
task "t0937" {
  queue = "default"
  concurrency = 1000
}
task "t0938" {
  queue = "default"
  concurrency = 1000
}
task "t0939" {
  queue = "default"
  concurrency = 1000
}
task "t0940" {
  queue = "default"
  concurrency = 1000
}
task "t0941" {
  queue = "default"
  concurrency = 1000
}
task "t0942" {
  queue = "default"
  concurrency = 1000
}
task "t0943" {
  queue = "default"
  concurrency = 1000
}
task "t0944" {
  queue = "default"
  concurrency = 1000
}
task "t0945" {
  queue = "default"
  concurrency = 1000
}
task "t0946" {
  queue = "default"
  concurrency = 1000
}
task "t0947" {
  queue = "default"
  concurrency = 1000
}
task "t0948" {
  queue = "default"
  concurrency = 1000
}
task "t0949" {
  queue = "default"
  concurrency = 1000
}
task "t0950" {
  queue = "default"
  concurrency = 1000
}
task "t0951" {
  queue = "default"
  concurrency = 1000
}
task "t0952" {
  queue = "default"
  concurrency = 1000
}
task "t0953" {
  queue = "default"
  concurrency = 1000
}
task "t0954" {
  queue = "default"
  concurrency = 1000
}
task "t0955" {
  queue = "default"
  concurrency = 1000
}
task "t0956" {
  queue = "default"
  concurrency = 1000
}
task "t0957" {
  queue = "default"
  concurrency = 1000
}
task "t0958" {
  queue = "default"
  concurrency = 1000
}
task "t0959" {
  queue = "default"
  concurrency = 1000
}
task "t0960" {
  queue = "default"
  concurrency = 1000
}
task "t0961" {
  queue = "default"
  concurrency = 1000
}
task "t0962" {
  queue = "default"
  concurrency = 1000
}
task "t0963" {
  queue = "default"
  concurrency = 1000
}
task "t0964" {
  queue = "default"
  concurrency = 1000
}
task "t0965" {
  queue = "default"
  concurrency = 1000
}
task "t0966" {
  queue = "default"
  concurrency = 1000
}
task "t0967" {
  queue = "default"
  concurrency = 1000
}
task "t0968" {
  queue = "default"
  concurrency = 1000
}
task "t0969" {
  queue = "default"
  concurrency = 1000
}
task "t0970" {
  queue = "default"
  concurrency = 1000
}
task "t0971" {
  queue = "default"
  concurrency = 1000
}
task "t0972" {
  queue = "default"
  concurrency = 1000
}
task "t0973" {
  queue = "default"
  concurrency = 1000
}
task "t0974" {
  queue = "default"
  concurrency = 1000
}
task "t0975" {
  queue = "default"
  concurrency = 1000
}
task "t0976" {
  queue = "default"
  concurrency = 1000
}
task "t0977" {
  queue = "default"
  concurrency = 1000
}
task "t0978" {
  queue = "default"
  concurrency = 1000
}
task "t0979" {
  queue = "default"
  concurrency = 1000
}
task "t0980" {
  queue = "default"
  concurrency = 1000
}
task "t0981" {
  queue = "default"
  concurrency = 1000
}
task "t0982" {
  queue = "default"
  concurrency = 1000
}
task "t0983" {
  queue = "default"
  concurrency = 1000
}
task "t0984" {
  queue = "default"
  concurrency = 1000
}
task "t0985" {
  queue = "default"
  concurrency = 1000
}
task "t0986" {
  queue = "default"
  concurrency = 1000
}
task "t0987" {
  queue = "default"
  concurrency = 1000
}
task "t0988" {
  queue = "default"
  concurrency = 1000
}
task "t0989" {
  queue = "default"
  concurrency = 1000
}
task "t0990" {
  queue = "default"
  concurrency = 1000
}
task "t0991" {
  queue = "default"
  concurrency = 1000
}
task "t0992" {
  queue = "default"
  concurrency = 1000
}
task "t0993" {
  queue = "default"
  concurrency = 1000
}
task "t0994" {
  queue = "default"
  concurrency = 1000
}
task "t0995" {
  queue = "default"
  concurrency = 1000
}
task "t0996" {
  queue = "default"
  concurrency = 1000
}
task "t0997" {
  queue = "default"
  concurrency = 1000
}
task "t0998" {
  queue = "default"
  concurrency = 1000
}
task "t0999" {
  queue = "default"
  concurrency = 1000
}
