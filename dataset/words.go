package dataset

// englishWords are common English words, lowercase ASCII letters only, roughly
// most common first. Prompts are made of them (see vocab.go).
const englishWords = `
the of and to in is was for on that with as by at from his her an be this which or had are but
not have it they were one their all been has when who more there can would what about out so some
them into time only new other than then its over also could after first two most made people
any like may way used years world many state these such through where much year before back
well even between good must life under while part same long last great city day still number
each music school end both group work public own found high old family known since against
during small large without home early place name three second house point water power several
often however around line form area among next system side country order word light hand give
take make come know think look want call find tell ask feel try leave put mean keep let begin
seem help show hear play run move live believe hold bring happen write provide sit stand lose
pay meet include continue set learn change lead understand watch follow stop create speak read
allow add spend grow open walk win offer remember love consider appear buy wait serve die send
expect build stay fall cut reach kill remain suggest raise pass sell require report decide pull
thing man woman child government company problem week case fact eye job night money story month
lot right study book issue kind head service friend father mother hour game member law car war
history party result morning reason research girl guy moment air teacher force education foot
boy age policy process health art mind price field plan base table body person door road idea
room market team wall river stone tree cloud garden window paper letter bridge mountain island
forest valley ocean village station corner kitchen bottle basket candle mirror pocket ticket
blanket jacket button pencil wheel engine signal shadow silver golden summer winter spring
autumn evening free full real best sure clear major better strong possible whole short low
late hard able local red white black green blue brown dark simple certain human common special
recent quick bright quiet gentle warm cold fresh clean deep wide narrow heavy soft loud rich
poor young happy sad calm busy empty very just now here never always again almost already
together today perhaps quite rather soon once enough ever maybe yet away really later animal
answer apple arm army artist baby bag ball band bank bar bed bill bird blood board boat bone
box brain bread break brother budget building business camera camp card care career cat center
chair chance character chief church class coach coast coat color community computer condition
cost council course court cover crowd culture cup customer dance data daughter dealer death
decision degree design desk detail device dinner direction doctor dog dream dress drink drive
earth economy edge effect effort egg election energy event evidence example exercise experience
face factor farm fear feature figure film finger fire fish flight floor flower focus food
fruit future gas gift glass goal gold grass ground growth gun hair hall heart heat hill hole
holiday horse hospital hotel ice image income industry item key king lady lake land language
leader leg level library lip list machine manager map mark match meal meeting memory message
metal method middle milk minute mission model mouth movie museum nation nature neck network
news nose note object office oil operation option owner page pain painting pair park partner
patient pattern peace period phone photo piece plane plant plate player poem poet police pool
position pressure program project property quality question radio rain range rate record region
rest rice ring rock role roof rule safety salt sand scene science screen sea season seat secret
sector sense series shape share ship shirt shoe shop shot shoulder sign singer sister site size
skill skin sky sleep snow society soil soldier song son sound source space speech speed sport
staff stage star step stock store street structure student style subject success sugar sun
supply surface target task tax tea technology television term test text theory thought title
tone tool top topic tour town track trade train travel trial trip truck truth turn type unit
user value version view vision visit voice vote wave weather weight wife wind wine wing wood
worker writer yard accept act agree arrive avoid bear beat carry catch cause choose claim climb
close collect compare contain cook count cross deal deliver depend describe develop discover
discuss draw drop eat enjoy enter explain fight fill finish fit fly forget gather hang hate
hide hit hope hurt imagine improve increase indicate join jump kick kiss knock laugh lay lie
lift listen manage marry matter measure mention miss mix notice obtain occur paint pick prepare
present press prevent produce protect prove publish reduce refer reflect refuse relate release
remove repeat replace reply return ride rise roll rush save score search see select shake shoot
shout sing sink smile solve sort spread steal stick succeed suffer support suppose surprise
switch talk teach tear thank throw touch treat trust wash wear wish wonder worry active actual
afraid alone ancient angry annual basic bitter blind bold brave broad careful central cheap
chemical civil classic comfortable complete complex cool correct crazy cultural current daily
dead dear direct dirty double dry eager easy electric equal exact extra fair familiar famous
fast fat final fine firm flat foreign formal former friendly funny general giant glad grand
gray guilty healthy helpful honest hot huge ideal illegal independent innocent internal legal
lucky main mental modern moral national native natural neat nervous normal obvious official
orange original perfect personal physical pink plain pleasant polite popular positive powerful
pretty primary prime private proper proud pure purple rare raw ready regular related remote
royal rough round rural safe senior serious sharp sick silent silly slow smart smooth social
solid south spare square steady steep strange strict sudden super sweet tall thick thin tight
tiny tired total tough true typical ugly unique upper urban useful usual valid various vast
vital wild wise wooden wrong yellow
`
